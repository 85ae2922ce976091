package io.shardflow.gateway.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.shardflow.app.validate.RejectReason;
import io.shardflow.app.validate.Rejection;
import io.shardflow.gateway.parse.ParsedSample;
import io.shardflow.gateway.publish.Delivery;
import java.util.List;

/**
 * The answer to a samples request: one result per sample, in request order, and the status the
 * request as a whole gets. 200 only when every sample was acknowledged by the broker; 422 (413 for
 * an oversize sample) when any sample is invalid, in which case none was sent; 503 when the broker
 * or registry failed any of them (the client retries the whole request, with the same sample ids).
 */
final class BatchAnswer {

    static final String ACCEPTED = "accepted";
    static final String REJECTED = "rejected";
    static final String FAILED = "failed";
    static final String NOT_SENT = "not_sent";

    private BatchAnswer() {
    }

    record Built(int status, byte[] body, long accepted, long rejected, long failed) {
    }

    /** Some samples are invalid: nothing was sent. */
    static Built rejected(String dataset, String version, String deviceId, List<ParsedSample> samples, List<Rejection> rejections) {
        ObjectNode root = root(dataset, version, deviceId);
        ArrayNode results = root.putArray("results");
        long rejected = 0;
        for (int i = 0; i < samples.size(); i++) {
            ObjectNode result = result(results, i, samples.get(i));
            Rejection rejection = rejections.get(i);
            if (rejection == null) {
                result.put("status", NOT_SENT);
            } else {
                rejected++;
                result.put("status", REJECTED).put("reason", rejection.reason().name()).put("detail", rejection.detail());
            }
        }
        boolean oversize = rejections.stream().anyMatch(r -> r != null && r.reason() == RejectReason.OVERSIZE_SAMPLE);
        return finish(root, oversize ? 413 : 422, 0, rejected, 0);
    }

    /** Every sample was sent: acknowledged, or not. */
    static Built delivered(String dataset, String version, String deviceId, List<ParsedSample> samples, List<Delivery> deliveries) {
        ObjectNode root = root(dataset, version, deviceId);
        ArrayNode results = root.putArray("results");
        long accepted = 0;
        long failed = 0;
        boolean permanent = false;
        for (int i = 0; i < samples.size(); i++) {
            ObjectNode result = result(results, i, samples.get(i));
            Delivery delivery = deliveries.get(i);
            if (delivery.acknowledged()) {
                accepted++;
                result.put("status", ACCEPTED).put("partition", delivery.partition()).put("offset", delivery.offset());
            } else if (delivery.permanent()) {
                permanent = true;
                failed++;
                result.put("status", REJECTED).put("reason", RejectReason.OVERSIZE_SAMPLE.name()).put("detail", delivery.failure());
            } else {
                failed++;
                result.put("status", FAILED).put("detail", delivery.failure());
            }
        }
        int status = failed == 0 ? 200 : permanent ? 413 : 503;
        return finish(root, status, accepted, permanent ? failed : 0, permanent ? 0 : failed);
    }

    private static ObjectNode root(String dataset, String version, String deviceId) {
        ObjectNode root = Problem.JSON.createObjectNode();
        root.put("dataset", dataset).put("version", version).put("device_id", deviceId);
        return root;
    }

    private static ObjectNode result(ArrayNode results, int index, ParsedSample sample) {
        return results.addObject().put("index", index).put("sample_id", sample.sample().getSampleId());
    }

    private static Built finish(ObjectNode root, int status, long accepted, long rejected, long failed) {
        root.put("accepted", accepted).put("rejected", rejected).put("failed", failed);
        // results last, after the counts, so a person reading the answer sees the summary first
        root.set("results", root.remove("results"));
        try {
            return new Built(status, Problem.JSON.writeValueAsBytes(root), accepted, rejected, failed);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
