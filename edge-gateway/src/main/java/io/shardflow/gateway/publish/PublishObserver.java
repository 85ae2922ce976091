package io.shardflow.gateway.publish;

/**
 * Hears what each record's delivery says about the gateway's dependencies: an acknowledgement proves
 * the broker (and the schema lookup) work; a failure says one of them may not. Readiness listens.
 */
public interface PublishObserver {

    PublishObserver NONE = new PublishObserver() {
        @Override
        public void acknowledged() {
        }

        @Override
        public void brokerFailed() {
        }

        @Override
        public void registryFailed() {
        }
    };

    void acknowledged();

    void brokerFailed();

    void registryFailed();
}
