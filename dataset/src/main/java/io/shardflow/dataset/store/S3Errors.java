package io.shardflow.dataset.store;

import io.minio.errors.ErrorResponseException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** Waiting on minio futures and sorting their failures. */
final class S3Errors {

    /** A minio call: throws its checked exceptions, returns the future of the response. */
    @FunctionalInterface
    interface Call<T> {
        CompletableFuture<T> start() throws Exception;
    }

    private S3Errors() {
    }

    /**
     * Starts the call and waits. minio's own HTTP timeouts bound the wait. Any failure comes back as
     * the unwrapped cause inside a {@link Failure} so callers can inspect S3 error codes.
     */
    static <T> T await(Call<T> call) throws Failure {
        try {
            return call.start().get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Failure(e);
        } catch (Exception e) {
            throw new Failure(unwrap(e));
        }
    }

    static Throwable unwrap(Throwable t) {
        Throwable current = t;
        while ((current instanceof CompletionException || current instanceof ExecutionException)
                && current.getCause() != null) {
            current = current.getCause();
        }
        return current;
    }

    static String code(Throwable t) {
        return t instanceof ErrorResponseException e && e.errorResponse() != null ? e.errorResponse().code() : null;
    }

    static int status(Throwable t) {
        return t instanceof ErrorResponseException e && e.response() != null ? e.response().code() : -1;
    }

    /** The object (not the bucket) is missing. */
    static boolean isNoSuchKey(Throwable t) {
        return "NoSuchKey".equals(code(t)) || "NoSuchObject".equals(code(t));
    }

    /** {@code If-None-Match: *} failed: the key exists. */
    static boolean isPreconditionFailed(Throwable t) {
        return status(t) == 412 || "PreconditionFailed".equals(code(t));
    }

    /** AWS answers 409 when another conditional write of the same key is in flight. */
    static boolean isConditionalConflict(Throwable t) {
        return "ConditionalRequestConflict".equals(code(t));
    }

    static boolean isBucketAlreadyOurs(Throwable t) {
        return "BucketAlreadyOwnedByYou".equals(code(t)) || "BucketAlreadyExists".equals(code(t));
    }

    /** Short description for messages: S3 code and HTTP status when there is one. */
    static String describe(Throwable t) {
        if (t instanceof InterruptedException) {
            return "interrupted";
        }
        String code = code(t);
        if (code != null) {
            return "S3 error " + code + " (HTTP " + status(t) + "): " + t.getMessage();
        }
        return t.getClass().getSimpleName() + ": " + t.getMessage();
    }

    /** Checked carrier of an unwrapped minio failure, so each operation decides what it means. */
    static final class Failure extends Exception {
        Failure(Throwable cause) {
            super(cause);
        }

        Throwable reason() {
            return getCause();
        }

        ObjectStoreException wrap(String operation, String key) {
            return new ObjectStoreException(operation, key, describe(getCause()), getCause());
        }
    }
}
