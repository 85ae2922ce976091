package io.shardflow.ingest.validate;

import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.TensorSpec;
import io.shardflow.ingest.spec.SpecSource;
import io.shardflow.schemas.DType;
import io.shardflow.schemas.Sample;
import io.shardflow.schemas.Tensor;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
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

    static final int MAX_ID_LENGTH = 256;

    private final SpecSource specs;
    private final long maxSampleBytes;

    /** @param maxSampleBytes process-wide cap on tensor payload per sample; a spec may set a lower one */
    public SampleValidator(SpecSource specs, long maxSampleBytes) {
        this.specs = specs;
        this.maxSampleBytes = maxSampleBytes;
    }

    /** The validated sample's spec, or the rejection. */
    public Validated validate(Sample sample) {
        Optional<Rejection> badField = checkIdentity(sample);
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
        return badTensors.map(Validated::rejected).orElseGet(() -> Validated.accepted(spec.get(), payloadBytes(sample)));
    }

    private static Optional<Rejection> checkIdentity(Sample sample) {
        if (isBlank(sample.getSampleId()) || sample.getSampleId().length() > MAX_ID_LENGTH) {
            return Optional.of(Rejection.of(RejectReason.INVALID_FIELD, "sampleId must be 1..%d characters", MAX_ID_LENGTH));
        }
        if (isBlank(sample.getDeviceId()) || sample.getDeviceId().length() > MAX_ID_LENGTH) {
            return Optional.of(Rejection.of(RejectReason.INVALID_FIELD, "deviceId must be 1..%d characters", MAX_ID_LENGTH));
        }
        if (isBlank(sample.getDataset()) || isBlank(sample.getVersion())) {
            return Optional.of(Rejection.of(RejectReason.INVALID_FIELD, "dataset and version must not be empty"));
        }
        return Optional.empty();
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
        long limit = spec.maxSampleBytes() > 0 ? Math.min(spec.maxSampleBytes(), maxSampleBytes) : maxSampleBytes;
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
        if (!tensor.getShape().equals(expected.shape())) {
            return Optional.of(Rejection.of(RejectReason.SHAPE_MISMATCH, "tensor '%s' has shape %s, spec says %s",
                    name, tensor.getShape(), expected.shape()));
        }
        int actual = tensor.getData().remaining();
        if (actual != expected.byteLength()) {
            return Optional.of(Rejection.of(RejectReason.BYTE_LENGTH_MISMATCH, "tensor '%s' has %d bytes, %s x %s needs %d",
                    name, actual, expected.dtype(), expected.shape(), expected.byteLength()));
        }
        if (!allowNonFinite && !allFinite(tensor.getDtype(), tensor.getData())) {
            return Optional.of(Rejection.of(RejectReason.NON_FINITE_VALUE, "tensor '%s' holds NaN or infinity and the spec forbids them", name));
        }
        return Optional.empty();
    }

    private static boolean allFinite(DType dtype, ByteBuffer data) {
        ByteBuffer le = data.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        if (dtype == DType.FLOAT32) {
            var floats = le.asFloatBuffer();
            while (floats.hasRemaining()) {
                if (!Float.isFinite(floats.get())) {
                    return false;
                }
            }
        } else if (dtype == DType.FLOAT64) {
            var doubles = le.asDoubleBuffer();
            while (doubles.hasRemaining()) {
                if (!Double.isFinite(doubles.get())) {
                    return false;
                }
            }
        }
        return true;
    }

    static long payloadBytes(Sample sample) {
        long total = 0;
        for (Tensor tensor : sample.getTensors()) {
            total += tensor.getData().remaining();
        }
        return total;
    }

    private static boolean isBlank(String s) {
        return s == null || s.isBlank();
    }

    /** A sample with its spec and tensor payload size, or a rejection. */
    public record Validated(DatasetSpec spec, long payloadBytes, Rejection rejection) {

        static Validated accepted(DatasetSpec spec, long payloadBytes) {
            return new Validated(spec, payloadBytes, null);
        }

        static Validated rejected(Rejection rejection) {
            return new Validated(null, 0L, rejection);
        }

        public boolean isRejected() {
            return rejection != null;
        }
    }

}
