package io.shardflow.cli.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The committed reference pages equal what the code makes of them now: a renamed option, a new
 * setting or a changed meter fails here until the pages are made again. With
 * {@code -Dshardflow.docs.write=true} ({@link ReferencePages#REGENERATE}) it writes them instead.
 */
class ReferencePagesTest {

    private static final boolean WRITE = Boolean.getBoolean("shardflow.docs.write");

    @TestFactory
    Stream<DynamicTest> shouldMatchTheCommittedReferencePages() {
        Path checkout = ReferencePages.checkout();
        return ReferencePages.pages().entrySet().stream().map(page -> DynamicTest.dynamicTest(page.getKey(), () -> {
            Path file = checkout.resolve(page.getKey());
            String made = make(page);
            if (WRITE) {
                Files.createDirectories(file.getParent());
                Files.writeString(file, made, StandardCharsets.UTF_8);
            }
            assertThat(Files.isRegularFile(file)).as("%s is missing: run %s", page.getKey(), ReferencePages.REGENERATE).isTrue();
            String committed = Files.readString(file, StandardCharsets.UTF_8);
            assertThat(committed).as("%s is stale (the code changed): run %s and commit the result", page.getKey(),
                    ReferencePages.REGENERATE).isEqualTo(made);
        }));
    }

    private static String make(Map.Entry<String, Supplier<String>> page) {
        String made = page.getValue().get();
        assertThat(made).as("%s made twice in a row", page.getKey()).isEqualTo(page.getValue().get());
        return made;
    }
}
