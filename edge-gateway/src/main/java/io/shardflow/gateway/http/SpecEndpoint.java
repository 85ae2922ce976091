package io.shardflow.gateway.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import io.shardflow.app.spec.SpecSource;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.Names;
import io.shardflow.dataset.spec.TensorSpec;
import io.shardflow.dataset.store.ObjectStoreException;
import io.shardflow.gateway.auth.Authenticator;
import io.shardflow.gateway.auth.DeviceIdentity;
import io.shardflow.gateway.config.RequestLimits;
import io.shardflow.gateway.parse.BadRequest;
import java.time.Duration;
import java.util.Optional;

/**
 * {@code GET /v1/datasets/{dataset}/versions/{version}/spec}: what an app must send to this
 * dataset version (each tensor's dtype and shape, free dimensions as null with their maximum) and
 * the limits it is held to, so it can check itself before it uploads.
 */
final class SpecEndpoint {

    private final Authenticator authenticator;
    private final SpecSource specs;
    private final RequestLimits limits;

    SpecEndpoint(Authenticator authenticator, SpecSource specs, RequestLimits limits) {
        this.authenticator = authenticator;
        this.specs = specs;
        this.limits = limits;
    }

    void handle(Context ctx) {
        String dataset = ctx.pathParam("dataset");
        String version = ctx.pathParam("version");
        if (!Names.DATASET_NAME.matcher(dataset).matches() || !Names.DATASET_NAME.matcher(version).matches()) {
            throw BadRequest.malformed("dataset and version names must match " + Names.DATASET_NAME.pattern());
        }
        DeviceIdentity device = SamplesEndpoint.authenticate(ctx, authenticator);
        if (!device.mayWrite(dataset)) {
            throw new BadRequest(403, "DATASET_NOT_ALLOWED", "device '" + device.deviceId() + "' may not write to dataset '" + dataset + "'");
        }
        Optional<DatasetSpec> spec;
        try {
            spec = specs.find(dataset, version);
            if (spec.isEmpty()) {
                boolean exists = specs.datasetExists(dataset);
                throw new BadRequest(404, exists ? "UNKNOWN_VERSION" : "UNKNOWN_DATASET",
                        exists ? "dataset '" + dataset + "' has no version '" + version + "'" : "no dataset named '" + dataset + "'");
            }
        } catch (ObjectStoreException e) {
            throw new SamplesEndpoint.Refused(Problem.of(503, "STORE_UNAVAILABLE", "the dataset catalog cannot be read now; retry")
                    .retryAfter(Duration.ofSeconds(limits.retryAfterSeconds())));
        }
        ctx.status(200).contentType("application/json").result(render(spec.get()).toString());
    }

    private ObjectNode render(DatasetSpec spec) {
        ObjectNode root = Problem.JSON.createObjectNode();
        root.put("dataset", spec.name()).put("version", spec.version()).put("fingerprint", spec.fingerprint());
        if (spec.labelTensor() == null) {
            root.putNull("label");
        } else {
            root.put("label", spec.labelTensor());
        }
        root.put("allow_non_finite", spec.allowNonFinite());
        long maxSample = spec.maxSampleBytes() > 0 ? Math.min(spec.maxSampleBytes(), limits.maxSampleBytes()) : limits.maxSampleBytes();
        root.put("max_sample_bytes", maxSample);
        ArrayNode tensors = root.putArray("tensors");
        for (TensorSpec tensor : spec.tensors()) {
            ObjectNode node = tensors.addObject().put("name", tensor.name()).put("dtype", tensor.dtype().numpyName())
                    .put("spec", tensor.toSpecString());
            ArrayNode shape = node.putArray("shape");
            ArrayNode maxShape = node.putArray("max_shape");
            for (int d = 0; d < tensor.shape().size(); d++) {
                int dim = tensor.shape().get(d);
                if (dim == TensorSpec.FREE) {
                    shape.addNull();
                    int max = tensor.maxDims().get(d);
                    if (max > 0) {
                        maxShape.add(max);
                    } else {
                        maxShape.addNull();
                    }
                } else {
                    shape.add(dim);
                    maxShape.add(dim);
                }
            }
            if (tensor.encoding() != null) {
                node.put("encoding", tensor.encoding());
            } else {
                node.putNull("encoding");
            }
        }
        root.put("max_request_bytes", limits.maxRequestBytes()).put("max_batch_samples", limits.maxBatchSamples());
        return root;
    }
}
