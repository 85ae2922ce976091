package io.shardflow.console.web;

import io.javalin.http.Context;
import io.javalin.http.HttpStatus;
import io.shardflow.dataset.shard.ShardDigest;
import java.nio.charset.StandardCharsets;

/**
 * ETags for pages whose content cannot change: a snapshot (invariant 5), a diff of two snapshots, a
 * shard, a sample, a thumbnail. The tag is a hash of what the page is of (and of the console's build,
 * so a new console renders afresh); a browser that already has the page gets a 304 without the server
 * reading anything.
 */
public final class Etags {

    private static final String BUILD = String.valueOf(Etags.class.getPackage().getImplementationVersion());

    private Etags() {
    }

    /**
     * Sets the ETag for {@code identity}; returns true when the request already holds it (a 304 has been
     * answered and the caller must render nothing).
     */
    public static boolean notModified(Context ctx, String identity, boolean longLived) {
        String tag = "\"" + ShardDigest.sha256((BUILD + "\n" + identity).getBytes(StandardCharsets.UTF_8)).substring(0, 32) + "\"";
        ctx.header("ETag", tag);
        ctx.header("Cache-Control", longLived ? "private, max-age=31536000, immutable" : "private, no-cache");
        String asked = ctx.header("If-None-Match");
        if (asked != null && (asked.equals(tag) || asked.contains(tag))) {
            ctx.status(HttpStatus.NOT_MODIFIED);
            return true;
        }
        return false;
    }
}
