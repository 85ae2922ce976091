package io.shardflow.cli.docs;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The metric families of a Prometheus text page: name, type, help, series names and label values. */
final class ScrapeFamilies {

    /**
     * A family as the page shows it. Label values are listed for the labels whose values are fixed by
     * the code (enumerations such as {@code reason}); the others by name only.
     */
    record Family(String name, String type, String help, Set<String> series, Map<String, Set<String>> labels) {

        String labelsText() {
            List<String> parts = new ArrayList<>();
            labels.forEach((label, values) -> parts.add(ENUMERATED.contains(label)
                    ? "`" + label + "`: " + String.join(", ", values)
                    : "`" + label + "`"));
            return String.join("; ", parts);
        }
    }

    /** Labels whose values come from an enumeration in the code, so they are the same on every machine. */
    private static final Set<String> ENUMERATED = Set.of("reason");
    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(.*)})? .*$");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    private ScrapeFamilies() {
    }

    static List<Family> parse(String text) {
        Map<String, String> types = new LinkedHashMap<>();
        Map<String, String> helps = new LinkedHashMap<>();
        Map<String, Set<String>> series = new TreeMap<>();
        Map<String, Map<String, Set<String>>> labels = new TreeMap<>();
        for (String line : text.split("\n")) {
            if (line.startsWith("# TYPE ")) {
                String[] parts = line.split(" ", 4);
                types.put(parts[2], parts[3]);
            } else if (line.startsWith("# HELP ")) {
                String[] parts = line.split(" ", 4);
                helps.put(parts[2], parts.length > 3 ? parts[3] : "");
            } else if (!line.isBlank() && !line.startsWith("#")) {
                Matcher sample = SAMPLE.matcher(line);
                if (!sample.matches()) {
                    throw new IllegalArgumentException("not a Prometheus sample line: " + line);
                }
                String family = familyOf(sample.group(1), types.keySet());
                series.computeIfAbsent(family, f -> new TreeSet<>()).add(sample.group(1));
                Map<String, Set<String>> byLabel = labels.computeIfAbsent(family, f -> new TreeMap<>());
                if (sample.group(3) != null) {
                    Matcher label = LABEL.matcher(sample.group(3));
                    while (label.find()) {
                        byLabel.computeIfAbsent(label.group(1), l -> new TreeSet<>()).add(label.group(2));
                    }
                }
            }
        }
        List<Family> families = new ArrayList<>();
        series.forEach((family, names) -> families.add(new Family(family, types.getOrDefault(family, "untyped"),
                helps.getOrDefault(family, ""), names, labels.get(family))));
        return families;
    }

    /** A histogram's {@code _bucket}, {@code _count} and {@code _sum} series belong to the family declared by TYPE. */
    private static String familyOf(String seriesName, Set<String> declared) {
        if (declared.contains(seriesName)) {
            return seriesName;
        }
        for (String suffix : List.of("_bucket", "_count", "_sum", "_created")) {
            if (seriesName.endsWith(suffix) && declared.contains(seriesName.substring(0, seriesName.length() - suffix.length()))) {
                return seriesName.substring(0, seriesName.length() - suffix.length());
            }
        }
        return seriesName;
    }
}
