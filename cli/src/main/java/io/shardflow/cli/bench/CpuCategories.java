package io.shardflow.cli.bench;

import java.util.List;
import java.util.Map;

/**
 * Names where a profiled stack spends its CPU: the innermost frame of a class we can attribute
 * (a library, or one of our packages) decides, so a JDK copy inside Avro decoding counts as Avro.
 * JDK frames count only where they are the work itself (checksums, digests); a JDK socket or file
 * write counts for whoever called it (Kafka's network layer, the S3 client, the HDF5 writer).
 */
final class CpuCategories {

    /** Class-name prefixes and their category, the more specific first. */
    private static final List<Map.Entry<String, String>> RULES = List.of(
            Map.entry("org.rocksdb.", "RocksDB (state stores)"),
            Map.entry("org.apache.kafka.streams.state.", "Streams state stores and caching"),
            Map.entry("org.apache.avro.", "Avro serde"),
            Map.entry("io.apicurio.", "Avro serde"),
            Map.entry("io.shardflow.app.validate.", "validation (ours)"),
            Map.entry("io.shardflow.ingest.", "ingest decisions (ours)"),
            Map.entry("org.bytedeco.", "HDF5 write"),
            Map.entry("io.jhdf.", "HDF5 write"),
            Map.entry("io.shardflow.sink.source.", "sample source (ours)"),
            Map.entry("io.shardflow.sink.", "shard build and commit (ours)"),
            Map.entry("io.shardflow.dataset.shard.", "shard file: row spill, HDF5 columns (ours)"),
            Map.entry("io.shardflow.dataset.store.", "object store calls (ours)"),
            Map.entry("io.shardflow.dataset.log.", "commit log (ours)"),
            Map.entry("io.shardflow.dataset.spec.", "dataset spec (ours)"),
            Map.entry("io.shardflow.dataset.", "dataset, other (ours)"),
            Map.entry("io.shardflow.app.", "service support (ours)"),
            Map.entry("java.util.zip.", "checksum / digest"),
            Map.entry("sun.security.provider.", "checksum / digest"),
            Map.entry("java.security.MessageDigest", "checksum / digest"),
            Map.entry("org.apache.kafka.common.utils.Crc32", "checksum / digest"),
            Map.entry("io.minio.", "S3 client"),
            Map.entry("software.amazon.", "S3 client"),
            Map.entry("okhttp3.", "S3 client"),
            Map.entry("okio.", "S3 client"),
            Map.entry("com.fasterxml.jackson.", "JSON"),
            Map.entry("org.apache.logging.", "logging"),
            Map.entry("ch.qos.logback.", "logging"),
            Map.entry("org.slf4j.", "logging"),
            Map.entry("io.micrometer.", "metrics"),
            Map.entry("io.prometheus.", "metrics"),
            Map.entry("org.apache.kafka.common.metrics.", "metrics"),
            Map.entry("org.apache.kafka.common.compress.", "compression"),
            Map.entry("com.github.luben.zstd.", "compression"),
            Map.entry("org.xerial.snappy.", "compression"),
            Map.entry("net.jpountz.", "compression"),
            Map.entry("org.apache.kafka.common.record.", "Kafka record batches"),
            Map.entry("org.apache.kafka.clients.producer.", "Kafka produce"),
            Map.entry("org.apache.kafka.clients.consumer.", "Kafka consume"),
            Map.entry("org.apache.kafka.common.protocol.", "Kafka protocol"),
            Map.entry("org.apache.kafka.common.message.", "Kafka protocol"),
            Map.entry("org.apache.kafka.common.requests.", "Kafka protocol"),
            Map.entry("org.apache.kafka.common.network.", "network I/O"),
            Map.entry("org.apache.kafka.clients.", "Kafka client (network, metadata)"),
            Map.entry("org.apache.kafka.streams.", "Kafka Streams runtime"),
            Map.entry("org.apache.kafka.", "Kafka (other)"),
            Map.entry("java.io.File", "file I/O"),
            Map.entry("java.io.RandomAccessFile", "file I/O"),
            Map.entry("sun.nio.fs.", "file I/O"),
            Map.entry("java.nio.file.", "file I/O"));

    /** Methods where a thread in native code waits rather than works; such samples are no CPU. */
    private static final List<String> WAITS = List.of("park", "wait", "wait0", "sleep", "sleep0", "epollWait", "poll", "poll0",
            "accept", "accept0", "waitForProcessExit0", "select", "doSelect", "socketRead0");

    private CpuCategories() {
    }

    /** The category of a stack, given its frames' class names innermost first. */
    static String of(List<String> classesInnermostFirst) {
        for (String type : classesInnermostFirst) {
            for (Map.Entry<String, String> rule : RULES) {
                if (type.startsWith(rule.getKey())) {
                    return rule.getValue();
                }
            }
        }
        return classesInnermostFirst.isEmpty() ? "unknown" : "other (" + packageOf(classesInnermostFirst.get(0)) + ")";
    }

    /** Whether a native sample whose innermost method is {@code method} is a thread waiting. */
    static boolean isWait(String method) {
        return WAITS.contains(method);
    }

    private static String packageOf(String type) {
        int dot = type.lastIndexOf('.');
        return dot < 0 ? type : type.substring(0, dot);
    }
}
