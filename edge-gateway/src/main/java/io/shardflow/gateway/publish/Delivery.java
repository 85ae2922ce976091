package io.shardflow.gateway.publish;

/**
 * What became of one record: acknowledged by the broker (partition and offset), or not, and why.
 *
 * @param permanent the record itself can never be written (too large for the topic): retrying will
 *                  not help, unlike an outage
 */
public record Delivery(int partition, long offset, String failure, boolean permanent) {

    public static Delivery acknowledged(int partition, long offset) {
        return new Delivery(partition, offset, null, false);
    }

    public static Delivery failed(String why, boolean permanent) {
        return new Delivery(-1, -1, why, permanent);
    }

    public boolean acknowledged() {
        return failure == null;
    }
}
