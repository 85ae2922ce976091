package io.shardflow.app.validate;

import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.TensorSpec;
import io.shardflow.app.spec.SpecSource;
import io.shardflow.schemas.DType;
import io.shardflow.schemas.Sample;
import io.shardflow.schemas.Tensor;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Checks a decoded sample against its dataset version's spec. Every way a sample can disagree with
 * the spec has its own reason code, so a device team can tell from the dead-letter header alone
 * what to fix.
 */
public final class SampleValidator {

    private final SpecSource specs;
    private final SampleLimits limits;
    private final FieldCheck fields;

    public SampleValidator(SpecSource specs, SampleLimits limits) {
        this.specs = specs;
        this.limits = limits;
        this.fields = new FieldCheck(limits);
    }

    /** The validated sample's spec, or the rejection. */
    public Validated validate(Sample sample) {
        // Names and ids first: they reach the catalog as object-key segments.
        Optional<Rejection> badField = fields.check(sample);
        if (badField.isPresent()) {
            return Validated.rejected(badField.get());
        }
        Optional<DatasetSpec> spec = specs.find(sample.getDataset(), sample.getVersion());
        if (spec.isEmpty()) {
            return Validated.rejected(specs.datasetExists(sample.getDataset())
                    ? Rejection.of(RejectReason.UNKNOWN_VERSION, "dataset '%s' has no version '%s'", sample.getDataset(), sample.getVersion())
                    : Rejection.of(RejectReason.UNKNOWN_DATASET, "no dataset named '%s'", sample.getDataset()));
        }
        Optional<Rejection> badTensors = checkTensors(sample, spec.get());
        return badTensors.map(Validated::rejected).orElseGet(() -> Validated.accepted(spec.get(), payloadBytes(sample),
                FieldCheck.attributeBytes(sample.getAttributes())));
    }

    private Optional<Rejection> checkTensors(Sample sample, DatasetSpec spec) {
        Map<String, Tensor> byName = new HashMap<>();
        for (Tensor tensor : sample.getTensors()) {
            if (byName.put(tensor.getName(), tensor) != null) {
                return Optional.of(Rejection.of(RejectReason.INVALID_FIELD, "tensor '%s' appears twice", tensor.getName()));
            }
            if (spec.tensor(tensor.getName()).isEmpty()) {
                return Optional.of(Rejection.of(RejectReason.UNEXPECTED_TENSOR, "tensor '%s' is not in the spec of %s/%s",
                        tensor.getName(), spec.name(), spec.version()));
            }
        }
        long total = 0;
        for (TensorSpec expected : spec.tensors()) {
            Tensor tensor = byName.get(expected.name());
            if (tensor == null) {
                return Optional.of(Rejection.of(RejectReason.MISSING_TENSOR, "tensor '%s' is missing", expected.name()));
            }
            Optional<Rejection> bad = checkTensor(tensor, expected, spec.allowNonFinite());
            if (bad.isPresent()) {
                return bad;
            }
            total += tensor.getData().remaining();
        }
        long limit = spec.maxSampleBytes() > 0 ? Math.min(spec.maxSampleBytes(), limits.maxSampleBytes()) : limits.maxSampleBytes();
        if (total > limit) {
            return Optional.of(Rejection.of(RejectReason.OVERSIZE_SAMPLE, "sample has %d tensor bytes, limit is %d", total, limit));
        }
        return Optional.empty();
    }

    private static Optional<Rejection> checkTensor(Tensor tensor, TensorSpec expected, boolean allowNonFinite) {
        String name = expected.name();
        if (!tensor.getDtype().name().equals(expected.dtype().name())) {
            return Optional.of(Rejection.of(RejectReason.DTYPE_MISMATCH, "tensor '%s' has dtype %s, spec says %s",
                    name, tensor.getDtype(), expected.dtype()));
        }
        Optional<Rejection> badShape = checkShape(tensor, expected);
        if (badShape.isPresent()) {
            return badShape;
        }
        int actual = tensor.getData().remaining();
        long needed = expected.dtype().variableLength() ? actual : elementCount(tensor.getShape()) * expected.dtype().itemSize();
        if (actual != needed) {
            return Optional.of(Rejection.of(RejectReason.BYTE_LENGTH_MISMATCH, "tensor '%s' has %d bytes, %s x %s needs %d",
                    name, actual, expected.dtype(), tensor.getShape(), needed));
        }
        if (tensor.getDtype() == DType.STRING && !isUtf8(tensor.getData())) {
            return Optional.of(Rejection.of(RejectReason.INVALID_UTF8, "string tensor '%s' is not valid UTF-8", name));
        }
        if (expected.encoding() != null) {
            Optional<String> problem = ImageCheck.problem(expected.encoding(), tensor.getData());
            if (problem.isPresent()) {
                return Optional.of(Rejection.of(RejectReason.CORRUPT_IMAGE, "tensor '%s' is not a well-formed %s: %s",
                        name, expected.encoding(), problem.get()));
            }
        }
        if (!allowNonFinite && !FiniteValues.allFinite(tensor.getDtype(), tensor.getData())) {
            return Optional.of(Rejection.of(RejectReason.NON_FINITE_VALUE, "tensor '%s' holds NaN or infinity and the spec forbids them", name));
        }
        return Optional.empty();
    }

    /** A fixed shape must be equal; a free dimension may take any size up to its maximum. */
    private static Optional<Rejection> checkShape(Tensor tensor, TensorSpec expected) {
        TensorSpec.ShapeProblem problem = expected.checkShape(tensor.getShape());
        if (problem == null) {
            return Optional.empty();
        }
        return Optional.of(Rejection.of(problem.overMaximum() ? RejectReason.DIMENSION_OVER_MAXIMUM : RejectReason.SHAPE_MISMATCH,
                "tensor '%s' %s", expected.name(), problem.detail()));
    }

    private static long elementCount(List<Integer> shape) {
        long n = 1;
        for (int dim : shape) {
            n *= dim;
            if (n > Integer.MAX_VALUE) {
                return Long.MAX_VALUE / 16; // larger than any byte[] can be: a length mismatch, never an overflow
            }
        }
        return n;
    }

    private static boolean isUtf8(ByteBuffer data) {
        try {
            StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(data.duplicate());
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    static long payloadBytes(Sample sample) {
        long total = 0;
        for (Tensor tensor : sample.getTensors()) {
            total += tensor.getData().remaining();
        }
        return total;
    }

    /**
     * A sample with its spec, tensor payload size and attribute size, or a rejection.
     *
     * @param attributeBytes UTF-8 bytes of attribute keys and values; they count toward the shard's
     *                       byte budget but not toward the seal marker's payload, which is tensors only
     */
    public record Validated(DatasetSpec spec, long payloadBytes, long attributeBytes, Rejection rejection) {

        static Validated accepted(DatasetSpec spec, long payloadBytes, long attributeBytes) {
            return new Validated(spec, payloadBytes, attributeBytes, null);
        }

        static Validated rejected(Rejection rejection) {
            return new Validated(null, 0L, 0L, rejection);
        }

        /** What the sample costs in its shard's byte budget. */
        public long budgetBytes() {
            return payloadBytes + attributeBytes;
        }

        public boolean isRejected() {
            return rejection != null;
        }
    }

}
