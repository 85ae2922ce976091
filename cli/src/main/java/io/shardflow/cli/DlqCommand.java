package io.shardflow.cli;

import io.shardflow.console.ConsoleSettings.KafkaSettings;
import io.shardflow.console.dlq.DeadLetter;
import io.shardflow.console.dlq.DeadLetterReader;
import io.shardflow.console.dlq.PayloadDecoder;
import io.shardflow.console.dlq.RedriveAudit;
import io.shardflow.console.dlq.Redriver;
import io.shardflow.dataset.store.S3ObjectStore;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code shardflow dlq}: the dead-letter topic from the command line; re-publishing is the only write, and it is audited. */
@Command(name = "dlq", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Dead letters: re-publish selected ones to the samples topic after fixing their cause (audited).",
        subcommands = DlqCommand.Redrive.class)
final class DlqCommand {

    @Command(name = "redrive", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = {"Re-publish dead letters to the samples topic: the original key, value and headers, plus",
                    "shardflow.redrive.from and shardflow.redrive.by. Each one is recorded create-only in the bucket under",
                    "audit/redrive/<topic>/<partition>/<offset>.json (who, when, why, where it went); a dead letter already",
                    "recorded there is skipped unless --again. Select with --reason, --device or --record (or --all)."},
            footerHeading = "%nExamples:%n",
            footer = {"  bin/shardflow dlq redrive --reason UNKNOWN_VERSION --note \"created cams/v2\" --dry-run",
                    "  bin/shardflow dlq redrive --record 0/42 --record 1/7 --note \"producer fixed\""})
    static final class Redrive implements Callable<Integer> {
        @Mixin
        Endpoints endpoints;
        @Option(names = "--reason", description = "dead letters with this reason code (repeatable)")
        List<String> reasons;
        @Option(names = "--device", description = "dead letters whose payload decodes to this device id (repeatable)")
        List<String> devices;
        @Option(names = "--record", paramLabel = "PARTITION/OFFSET", description = "one dead letter by position (repeatable)")
        List<String> records;
        @Option(names = "--all", description = "every dead letter in the window (no other selection)")
        boolean all;
        @Option(names = "--window", defaultValue = "10000", description = "newest records read per partition (default: ${DEFAULT-VALUE})")
        int window;
        @Option(names = "--note", required = true, description = "why this is redriven (kept in the audit record)")
        String note;
        @Option(names = "--by", defaultValue = "${env:USER:-unknown}", description = "who redrives (default: ${DEFAULT-VALUE})")
        String by;
        @Option(names = "--dlq-topic", defaultValue = "samples-dlq", description = "dead-letter topic (default: ${DEFAULT-VALUE})")
        String dlqTopic;
        @Option(names = "--to", defaultValue = "samples", description = "topic to re-publish to (default: ${DEFAULT-VALUE})")
        String target;
        @Option(names = "--again", description = "also redrive dead letters the audit says were redriven before")
        boolean again;
        @Option(names = "--dry-run", description = "list what would be redriven, publish nothing")
        boolean dryRun;
        @Option(names = "--json", description = "print {redriven: [{deadLetter, reason, outcome, targetOffset}]}")
        boolean json;
        @Spec
        picocli.CommandLine.Model.CommandSpec command;

        @Override
        public Integer call() {
            boolean selected = reasons != null || devices != null || records != null;
            if (selected == all) {
                throw new IllegalArgumentException(all ? "--all cannot be combined with --reason, --device or --record"
                        : "select dead letters with --reason, --device or --record, or say --all");
            }
            KafkaSettings kafka = KafkaSettings.defaults(endpoints.bootstrapServers(), endpoints.kafkaClientSettings());
            RedriveAudit audit = new RedriveAudit(S3ObjectStore.connect(endpoints.s3()));
            List<DeadLetter> chosen;
            try (DeadLetterReader reader = new DeadLetterReader(kafka, dlqTopic, Duration.ofSeconds(30));
                 PayloadDecoder decoder = new PayloadDecoder(devices == null ? null : endpoints.registrySerdeSettings(endpoints.registryUrl()))) {
                chosen = select(reader, decoder);
            }
            PrintWriter out = command.commandLine().getOut();
            List<Map<String, Object>> report = new ArrayList<>();
            if (dryRun) {
                chosen.forEach(l -> report.add(line(l, audit.exists(l) && !again ? "ALREADY_REDRIVEN" : "WOULD_REDRIVE", -1)));
            } else {
                try (Redriver redriver = new Redriver(kafka, target, audit, Clock.systemUTC())) {
                    redriver.redrive(chosen, by, note, again).forEach(r -> report.add(line(r.letter(), r.outcome().name(), r.targetOffset())));
                }
            }
            if (json) {
                out.println(JsonOutput.write(Map.of("redriven", report)));
            } else {
                report.forEach(r -> out.printf("%-16s %s  %s%s%n", r.get("outcome"), r.get("deadLetter"), r.get("reason"),
                        (long) r.get("targetOffset") >= 0 ? "  -> " + target + " offset " + r.get("targetOffset") : ""));
                out.printf("%d dead letters selected%s%n", chosen.size(), dryRun ? " (dry run: nothing published)" : "");
            }
            return 0;
        }

        private List<DeadLetter> select(DeadLetterReader reader, PayloadDecoder decoder) {
            List<DeadLetter> chosen = new ArrayList<>();
            if (records != null) {
                for (String record : records) {
                    String[] parts = record.split("/");
                    if (parts.length != 2 || !parts[0].matches("\\d+") || !parts[1].matches("\\d+")) {
                        throw new IllegalArgumentException("--record takes PARTITION/OFFSET, e.g. 0/42, got '" + record + "'");
                    }
                    Optional<DeadLetter> letter = reader.at(Integer.parseInt(parts[0]), Long.parseLong(parts[1]));
                    chosen.add(letter.orElseThrow(() -> new IllegalArgumentException("no dead letter at " + record + " on " + dlqTopic)));
                }
            }
            if (reasons != null || devices != null || all) {
                for (DeadLetter l : reader.newest(window)) {
                    boolean reasonOk = reasons == null || reasons.contains(l.reason());
                    boolean deviceOk = devices == null || decoder.decode(dlqTopic, l.value()).deviceId().filter(devices::contains).isPresent();
                    if (reasonOk && deviceOk && chosen.stream().noneMatch(c -> c.address().equals(l.address()))) {
                        chosen.add(l);
                    }
                }
            }
            // Oldest first: records are re-published in the order they were refused.
            chosen.sort(java.util.Comparator.comparing(DeadLetter::timestamp).thenComparing(DeadLetter::partition)
                    .thenComparing(DeadLetter::offset));
            return chosen;
        }

        private static Map<String, Object> line(DeadLetter l, String outcome, long targetOffset) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("deadLetter", l.address());
            m.put("reason", l.reason());
            m.put("outcome", outcome);
            m.put("targetOffset", targetOffset);
            return m;
        }
    }
}
