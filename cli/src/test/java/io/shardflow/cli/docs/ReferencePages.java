package io.shardflow.cli.docs;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/** The generated reference pages under docs/reference, each made from the code it documents. */
final class ReferencePages {

    /** The command that writes them again; every stale-page failure names it. */
    static final String REGENERATE = "scripts/docs-generate.sh";

    private ReferencePages() {
    }

    /** Page path (relative to the checkout) to how it is made. */
    static Map<String, Supplier<String>> pages() {
        Map<String, Supplier<String>> pages = new LinkedHashMap<>();
        pages.put("docs/reference/cli.md", CliReference::page);
        pages.put("docs/reference/configuration.md", ConfigReference::page);
        pages.put("docs/reference/metrics.md", MetricsReference::page);
        return pages;
    }

    /** The checkout: the nearest folder above the working directory that holds docs/ARCHITECTURE.md. */
    static Path checkout() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("docs/ARCHITECTURE.md"))) {
                return dir;
            }
        }
        throw new IllegalStateException("no checkout (a folder with docs/ARCHITECTURE.md) above " + Path.of("").toAbsolutePath());
    }
}
