package io.shardflow.dataset.spec;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The immutable description of one dataset version: its tensor layout plus descriptive metadata.
 *
 * @param labelTensor    name of the tensor trainers use as the label, or {@code null}
 * @param author         free text; {@code null} is stored as ""
 * @param description    free text; {@code null} is stored as ""
 * @param maxSampleBytes per-sample tensor byte cap for ingest validation; 0 means "no spec-level cap"
 * @param allowNonFinite whether float tensors may hold NaN or infinities
 * @param compression    how the shard files compress tensor data
 */
public record DatasetSpec(
        String name,
        String version,
        List<TensorSpec> tensors,
        String labelTensor,
        String author,
        String description,
        long maxSampleBytes,
        boolean allowNonFinite,
        Instant createdAt,
        Compression compression) {

    public DatasetSpec {
        Names.requireDatasetName("dataset name", name);
        Names.requireDatasetName("dataset version", version);
        Objects.requireNonNull(tensors, "tensors");
        if (tensors.isEmpty()) {
            throw new IllegalArgumentException("dataset " + name + "/" + version + " declares no tensors: at least one is needed");
        }
        tensors = List.copyOf(tensors);
        Set<String> seen = new HashSet<>();
        for (TensorSpec tensor : tensors) {
            if (!seen.add(tensor.name())) {
                throw new IllegalArgumentException("dataset " + name + "/" + version + " declares tensor '"
                        + tensor.name() + "' twice");
            }
        }
        if (labelTensor != null && !seen.contains(labelTensor)) {
            throw new IllegalArgumentException("dataset " + name + "/" + version + ": labelTensor '" + labelTensor
                    + "' is not one of the declared tensors " + seen.stream().sorted().toList());
        }
        if (maxSampleBytes < 0) {
            throw new IllegalArgumentException("dataset " + name + "/" + version + ": maxSampleBytes must be >= 0 (0 = no cap), got "
                    + maxSampleBytes);
        }
        author = author == null ? "" : author;
        description = description == null ? "" : description;
        Objects.requireNonNull(createdAt, "createdAt");
        compression = compression == null ? Compression.NONE : compression;
    }

    /** An uncompressed dataset version. */
    public DatasetSpec(String name, String version, List<TensorSpec> tensors, String labelTensor, String author,
            String description, long maxSampleBytes, boolean allowNonFinite, Instant createdAt) {
        this(name, version, tensors, labelTensor, author, description, maxSampleBytes, allowNonFinite, createdAt,
                Compression.NONE);
    }

    /** The same spec with other compression (compression is not part of the fingerprint). */
    public DatasetSpec withCompression(Compression other) {
        return new DatasetSpec(name, version, tensors, labelTensor, author, description, maxSampleBytes, allowNonFinite,
                createdAt, other);
    }

    public Optional<TensorSpec> tensor(String tensorName) {
        return tensors.stream().filter(t -> t.name().equals(tensorName)).findFirst();
    }

    /** Tensor bytes of one sample: the sum over all tensors; only when every tensor has a fixed size. */
    public long sampleByteLength() {
        return tensors.stream().mapToLong(TensorSpec::byteLength).sum();
    }

    /** Whether any tensor's size differs between samples (string, bytes, free dimensions). */
    public boolean hasVariableTensors() {
        return tensors.stream().anyMatch(TensorSpec::isVariable);
    }

    /**
     * The text the fingerprint hashes: one line per tensor in declared order,
     * {@code name:dtype:d1xd2...\n} with the numpy dtype name and an empty shape part for scalars,
     * e.g. {@code "image:float32:3x32x32\nlabel:int64:\n"}; a free dimension is {@code ?} or
     * {@code ?<=N}, and a bytes tensor's shape part is its media type ({@link TensorSpec#shapeText()}).
     * Readers in other languages recompute it from this rule.
     */
    public String canonicalLayout() {
        return tensors.stream()
                .map(t -> t.name() + ":" + t.dtype().numpyName() + ":" + t.shapeText() + "\n")
                .collect(Collectors.joining());
    }

    /**
     * Lowercase hex SHA-256 of {@link #canonicalLayout()}. Only the layout counts: two specs with the
     * same fingerprint produce interchangeable shards, whatever their author, description or dates.
     */
    public String fingerprint() {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            return HexFormat.of().formatHex(sha.digest(canonicalLayout().getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
