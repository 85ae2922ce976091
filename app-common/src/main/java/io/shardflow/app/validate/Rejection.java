package io.shardflow.app.validate;

/** Why one record was refused: a stable code for machines and a sentence for people. */
public record Rejection(RejectReason reason, String detail) {

    public static Rejection of(RejectReason reason, String detail, Object... args) {
        return new Rejection(reason, args.length == 0 ? detail : String.format(detail, args));
    }
}
