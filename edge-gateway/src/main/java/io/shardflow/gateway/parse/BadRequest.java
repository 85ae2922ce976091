package io.shardflow.gateway.parse;

/**
 * A request the gateway refuses as a whole before looking at any sample: the HTTP status, a stable
 * code for machines and a sentence for people (RFC 9457 problem details).
 */
public final class BadRequest extends RuntimeException {

    private final int status;
    private final String code;

    public BadRequest(int status, String code, String detail) {
        super(detail, null, false, false);
        this.status = status;
        this.code = code;
    }

    public static BadRequest malformed(String detail) {
        return new BadRequest(400, "MALFORMED_REQUEST", detail);
    }

    public int status() {
        return status;
    }

    public String code() {
        return code;
    }
}
