package io.shardflow.cli;

import io.shardflow.dataset.catalog.DatasetCatalog;
import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.Snapshot;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.TensorSpec;
import io.shardflow.dataset.store.ObjectStore;
import io.shardflow.dataset.store.S3ObjectStore;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "dataset", description = "Create, list and inspect datasets.",
        subcommands = {DatasetCommand.Create.class, DatasetCommand.ListDatasets.class, DatasetCommand.Show.class})
final class DatasetCommand {

    static ObjectStore store(Endpoints endpoints) {
        return S3ObjectStore.connect(endpoints.s3());
    }

    @Command(name = "create", description = "Create a dataset version with its tensor spec (idempotent for the same spec).")
    static final class Create implements Callable<Integer> {
        @Mixin
        Endpoints endpoints;
        @Spec
        picocli.CommandLine.Model.CommandSpec command;

        @Option(names = "--name", required = true)
        String name;
        @Option(names = "--version", required = true)
        String version;
        @Option(names = "--tensor", required = true, paramLabel = "NAME:DTYPE[:SHAPE]",
                description = "e.g. image:float32:3x32x32 or label:int64 (repeatable)")
        List<String> tensors;
        @Option(names = "--label", description = "name of the tensor holding the class label")
        String label;
        @Option(names = "--author", defaultValue = "${env:USER:-unknown}")
        String author;
        @Option(names = "--description", defaultValue = "")
        String description;
        @Option(names = "--max-sample-bytes", defaultValue = "0", description = "per-sample payload cap; 0 = ingest-app default")
        long maxSampleBytes;
        @Option(names = "--allow-non-finite", description = "accept NaN and infinity in float tensors")
        boolean allowNonFinite;

        @Override
        public Integer call() {
            List<TensorSpec> parsed = tensors.stream().map(TensorSpec::parse).toList();
            DatasetSpec spec = new DatasetSpec(name, version, parsed, label, author, description, maxSampleBytes,
                    allowNonFinite, Instant.now());
            new DatasetCatalog(store(endpoints)).create(spec);
            command.commandLine().getOut().printf("dataset %s/%s ready (spec %s)%n", name, version, spec.fingerprint().substring(0, 12));
            return 0;
        }
    }

    @Command(name = "list", description = "List datasets and their versions.")
    static final class ListDatasets implements Callable<Integer> {
        @Mixin
        Endpoints endpoints;
        @Spec
        picocli.CommandLine.Model.CommandSpec command;
        @Option(names = "--json")
        boolean json;

        @Override
        public Integer call() {
            DatasetCatalog catalog = new DatasetCatalog(store(endpoints));
            Map<String, List<String>> all = new LinkedHashMap<>();
            for (String dataset : catalog.datasets()) {
                all.put(dataset, catalog.versions(dataset));
            }
            PrintWriter out = command.commandLine().getOut();
            if (json) {
                out.println(JsonOutput.write(all));
            } else if (all.isEmpty()) {
                out.println("no datasets");
            } else {
                all.forEach((dataset, versions) -> out.printf("%s  versions: %s%n", dataset, String.join(", ", versions)));
            }
            return 0;
        }
    }

    @Command(name = "show", description = "Show a dataset version's spec and a snapshot (latest by default).")
    static final class Show implements Callable<Integer> {
        @Mixin
        Endpoints endpoints;
        @Spec
        picocli.CommandLine.Model.CommandSpec command;
        @Parameters(index = "0", paramLabel = "NAME")
        String name;
        @Parameters(index = "1", paramLabel = "VERSION")
        String version;
        @Option(names = "--snapshot", description = "snapshot id (default: latest)")
        Long snapshotId;
        @Option(names = "--shards", description = "list every shard")
        boolean listShards;
        @Option(names = "--json")
        boolean json;

        @Override
        public Integer call() {
            ObjectStore store = store(endpoints);
            DatasetSpec spec = new DatasetCatalog(store).spec(name, version)
                    .orElseThrow(() -> new IllegalArgumentException("no dataset " + name + "/" + version));
            CommitLog log = new CommitLog(store, name, version, Clock.systemUTC());
            Snapshot snapshot = snapshotId == null ? log.latest() : log.snapshot(snapshotId);
            PrintWriter out = command.commandLine().getOut();
            if (json) {
                Map<String, Object> view = new LinkedHashMap<>();
                view.put("spec", spec);
                view.put("snapshot", SnapshotSummary.of(snapshot));
                if (listShards) {
                    view.put("shards", snapshot.shards());
                }
                out.println(JsonOutput.write(view));
                return 0;
            }
            out.printf("dataset %s/%s  spec %s  by %s%n", name, version, spec.fingerprint().substring(0, 12), spec.author());
            spec.tensors().forEach(t -> out.printf("  tensor %-16s %-8s %s%n", t.name(), t.dtype().numpyName(), t.shape()));
            out.println("  " + SnapshotSummary.of(snapshot).line());
            if (listShards) {
                snapshot.shards().forEach(s -> out.printf("    %s  %d samples  %d bytes  sha256 %s%n", s.objectKey(),
                        s.sampleCount(), s.bytes(), s.sha256().substring(0, 16)));
            }
            return 0;
        }
    }
}
