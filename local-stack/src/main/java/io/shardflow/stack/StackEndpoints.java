package io.shardflow.stack;

import io.shardflow.dataset.store.S3Settings;
import java.nio.file.Path;
import java.util.Optional;

/** The endpoints of a running stack, from the live object or from its state file. */
public record StackEndpoints(String bootstrapServers, String registryUrl, String s3Endpoint, String s3AccessKey,
                             String s3SecretKey, String bucket) {

    public static StackEndpoints of(LocalStack stack) {
        return new StackEndpoints(stack.bootstrapServers(), stack.registryUrl(), stack.s3Endpoint(), stack.s3AccessKey(),
                stack.s3SecretKey(), stack.bucket());
    }

    /** The object-store settings of this stack. */
    public S3Settings s3Settings() {
        return new S3Settings(s3Endpoint, s3AccessKey, s3SecretKey, bucket, "us-east-1");
    }

    public static Optional<StackEndpoints> read(Path stackDir) {
        return LocalStack.read(stackDir).map(StackEndpoints::of);
    }

    public static StackEndpoints of(StackState state) {
        return new StackEndpoints(state.bootstrapServers(), state.registryUrl(), state.s3Endpoint(), state.s3AccessKey(),
                state.s3SecretKey(), state.bucket());
    }
}
