package io.shardflow.cli.bench;

import io.shardflow.cli.JsonOutput;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Writes one run's results as JSON, a markdown table and PNG plots into one directory. */
public final class BenchReport {

    public static final String JSON = "bench-results.json";
    public static final String MARKDOWN = "bench-results.md";

    private BenchReport() {
    }

    /** Returns the files written. */
    public static List<Path> write(BenchResults results, Path dir) throws IOException {
        Files.createDirectories(dir);
        List<Path> written = new ArrayList<>();
        written.add(Files.writeString(dir.resolve(JSON), JsonOutput.write(results) + System.lineSeparator()));
        written.add(Files.writeString(dir.resolve(MARKDOWN), MarkdownTable.render(results)));
        written.addAll(BenchPlots.write(results, dir));
        return written;
    }
}
