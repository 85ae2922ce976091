package io.shardflow.cli;

import io.shardflow.dataset.catalog.DatasetCatalog;
import io.shardflow.dataset.log.Snapshot;
import io.shardflow.dataset.spec.Compression;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.TensorSpec;
import io.shardflow.dataset.store.ObjectStore;
import io.shardflow.dataset.store.S3ObjectStore;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "dataset", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class, footerHeading = "%nExamples:%n",
        footer = {"  bin/shardflow dataset create --name cams --version v1 --tensor image:float32:3x32x32 \\",
                "      --tensor label:int64 --label label",
                "  bin/shardflow dataset create --name det --version v1 --tensor frame:bytes:image/jpeg \\",
                "      --tensor boxes:float32:?<=64x4 --tensor caption:string --compression lzf",
                "  bin/shardflow dataset verify cams v1 --json"},
        description = "Create, list, inspect, verify and compare datasets.",
        subcommands = {DatasetCommand.Create.class, DatasetCommand.ListDatasets.class, DatasetCommand.Show.class,
                DatasetSnapshotsCommand.class, DatasetVerifyCommand.class, DatasetDiffCommand.class,
                DatasetQuarantineCommand.class, DatasetTagCommand.class, DatasetRetentionCommand.class,
                DatasetCompactCommand.class, DatasetExpireCommand.class, DatasetDeleteCommand.class})
final class DatasetCommand {

    static ObjectStore store(Endpoints endpoints) {
        return S3ObjectStore.connect(endpoints.s3());
    }

    @Command(name = "create", versionProvider = VersionProvider.class,
            description = "Create a dataset version with its tensor spec (idempotent for the same spec).",
            footerHeading = "%nExamples:%n",
            footer = {"  bin/shardflow dataset create --name cams --version v1 --tensor image:float32:3x32x32 \\",
                    "      --tensor label:int64 --label label --author ana --description \"front cameras\""})
    static final class Create extends DatasetSubcommand {
        @Mixin
        HelpOnlyOptions help;
        @Option(names = "--name", required = true, description = "dataset name, e.g. cams")
        String name;
        @Option(names = "--version", required = true, description = "dataset version, e.g. v1 (a new version for a new tensor layout)")
        String version;
        @Option(names = "--tensor", required = true, paramLabel = "NAME:DTYPE[:SHAPE]",
                description = "e.g. image:float32:3x32x32, label:int64, boxes:float32:?x4, tokens:int32:?<=512,"
                        + " caption:string, frame:bytes:image/jpeg (repeatable). Dtypes: bool, uint8, int8, int16, uint16,"
                        + " int32, uint32, int64, uint64, float16, bfloat16, float32, float64, string, bytes")
        List<String> tensors;
        @Option(names = "--label", description = "name of the tensor holding the class label")
        String label;
        @Option(names = "--author", defaultValue = "${env:USER:-unknown}", description = "who made the version (env USER, default: ${DEFAULT-VALUE})")
        String author;
        @Option(names = "--description", defaultValue = "", description = "free text kept in the spec")
        String description;
        @Option(names = "--max-sample-bytes", defaultValue = "0", description = "per-sample payload cap; 0 = ingest-app default")
        long maxSampleBytes;
        @Option(names = "--allow-non-finite", description = "accept NaN and infinity in float tensors")
        boolean allowNonFinite;
        @Option(names = "--compression", defaultValue = "none", paramLabel = "none|gzip[:LEVEL]|lzf",
                description = "how shard files compress tensor data: none, gzip (level 1-9, default 4) or lzf (fast);"
                        + " h5py reads all three (default: ${DEFAULT-VALUE})")
        String compression;
        @Option(names = "--create-bucket", description = "create the bucket first if it does not exist (a fresh deployment's init)")
        boolean createBucket;

        @Override
        public Integer call() {
            // The spec first: a bad tensor or compression exits 2 naming it, before any server is asked.
            List<TensorSpec> parsed = tensors.stream().map(TensorSpec::parse).toList();
            DatasetSpec spec = new DatasetSpec(name, version, parsed, label, author, description, maxSampleBytes,
                    allowNonFinite, clock.instant(), Compression.parse(compression));
            if (createBucket) {
                store().ensureBucket();
            }
            new DatasetCatalog(store()).create(spec);
            out().printf("dataset %s/%s ready (spec %s)%n", name, version, spec.fingerprint().substring(0, 12));
            return 0;
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class, description = "List datasets, their versions and each version's latest snapshot.")
    static final class ListDatasets extends DatasetSubcommand {
        @Option(names = "--json", description = "print {datasets: [{name, versions: [{version, latestSnapshot, shards, samples, bytes}]}]}")
        boolean json;

        /** One version's line. */
        record VersionView(String version, long latestSnapshot, int shards, long samples, long bytes) {
        }

        /** One dataset's versions. */
        record DatasetView(String name, List<VersionView> versions) {
        }

        @Override
        public Integer call() {
            DatasetCatalog catalog = new DatasetCatalog(store());
            List<DatasetView> all = new ArrayList<>();
            for (String dataset : catalog.datasets()) {
                List<VersionView> versions = new ArrayList<>();
                for (String version : catalog.versions(dataset)) {
                    Snapshot latest = log(dataset, version).latest();
                    versions.add(new VersionView(version, latest.snapshotId(), latest.shards().size(), latest.sampleCount(),
                            latest.bytes()));
                }
                all.add(new DatasetView(dataset, versions));
            }
            PrintWriter out = out();
            if (json) {
                out.println(JsonOutput.write(Map.of("datasets", all)));
            } else if (all.isEmpty()) {
                out.println("no datasets");
            } else {
                for (DatasetView dataset : all) {
                    out.println(dataset.name());
                    dataset.versions().forEach(v -> out.printf("  %-12s latest snapshot %d: %d shards, %d samples, %s%n",
                            v.version(), v.latestSnapshot(), v.shards(), v.samples(), SnapshotSummary.humanBytes(v.bytes())));
                }
            }
            return 0;
        }
    }

    @Command(name = "show", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class, description = "Show a dataset version's spec and a snapshot (latest by default): size,"
            + " produce-time range and, when the spec names a label tensor, samples per label.")
    static final class Show extends DatasetSubcommand {
        @Mixin
        SnapshotArgs target;
        @Option(names = "--shards", description = "list every shard")
        boolean listShards;
        @Option(names = "--no-label-counts", description = "skip counting labels (it reads the label tensor of every shard)")
        boolean noLabelCounts;
        @Option(names = "--json", description = "print {spec, snapshot, labelCounts, shards} with the field names of dataset/FORMAT.md")
        boolean json;

        @Override
        public Integer call() {
            DatasetSpec spec = requireSpec(target.name, target.version);
            Snapshot snapshot = target.in(log(target.name, target.version));
            Optional<Map<String, Long>> labels = noLabelCounts ? Optional.empty() : countLabels(spec, snapshot);
            PrintWriter out = out();
            if (json) {
                Map<String, Object> view = new LinkedHashMap<>();
                view.put("spec", spec);
                view.put("snapshot", SnapshotSummary.of(snapshot));
                labels.ifPresent(counts -> view.put("labelCounts", Map.of("tensor", spec.labelTensor(), "counts", counts)));
                if (listShards) {
                    view.put("shards", snapshot.shards());
                }
                out.println(JsonOutput.write(view));
                return 0;
            }
            SnapshotSummary summary = SnapshotSummary.of(snapshot);
            out.printf("dataset %s/%s  spec %s  by %s%n", target.name, target.version, spec.fingerprint().substring(0, 12),
                    spec.author());
            spec.tensors().forEach(t -> out.printf("  tensor %-16s %-8s %s%s%n", t.name(), t.dtype().numpyName(), t.shape(),
                    t.name().equals(spec.labelTensor()) ? "  (label)" : ""));
            out.println("  " + summary.line());
            if (summary.firstProducedAt() != null) {
                out.printf("  produced %s .. %s%n", summary.firstProducedAt(), summary.lastProducedAt());
            }
            labels.ifPresent(counts -> {
                out.printf("  samples per %s (%d values):%n", spec.labelTensor(), counts.size());
                counts.forEach((label, n) -> out.printf("    %-12s %d%n", label, n));
            });
            if (listShards) {
                snapshot.shards().forEach(s -> out.printf("    %s  %d samples  %d bytes  sha256 %s%n", s.objectKey(),
                        s.sampleCount(), s.bytes(), s.sha256().substring(0, 16)));
            }
            return 0;
        }

        private Optional<Map<String, Long>> countLabels(DatasetSpec spec, Snapshot snapshot) {
            if (spec.labelTensor() == null) {
                return Optional.empty();
            }
            try (Progress progress = shardProgress("label counts", snapshot.shards().size())) {
                return DatasetLabels.count(new CountingDownloads(store(), progress), spec, snapshot);
            }
        }
    }
}
