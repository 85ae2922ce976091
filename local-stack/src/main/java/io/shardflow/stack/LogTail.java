package io.shardflow.stack;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.stream.Stream;

/** The last lines of a server log, formatted to be appended to an exception message. */
final class LogTail {

    private LogTail() {
    }

    static String of(Path logFile, int maxLines) {
        if (!Files.isRegularFile(logFile)) {
            return "";
        }
        Deque<String> last = new ArrayDeque<>(maxLines);
        // ISO-8859-1 decodes any byte: a server killed mid-write may leave half a UTF-8 character.
        try (Stream<String> lines = Files.lines(logFile, StandardCharsets.ISO_8859_1)) {
            lines.forEach(line -> {
                if (last.size() == maxLines) {
                    last.removeFirst();
                }
                last.addLast(line);
            });
        } catch (IOException | java.io.UncheckedIOException e) {
            return System.lineSeparator() + "(cannot read " + logFile + ": " + e.getMessage() + ")";
        }
        StringBuilder text = new StringBuilder(System.lineSeparator())
                .append("---- last ").append(last.size()).append(" lines of ").append(logFile).append(" ----");
        last.forEach(line -> text.append(System.lineSeparator()).append(line));
        return text.toString();
    }
}
