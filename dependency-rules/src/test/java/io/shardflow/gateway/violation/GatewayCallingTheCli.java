package io.shardflow.gateway.violation;

import io.shardflow.cli.Shardflow;

/** A fixture that breaks the rules on purpose: the HTTP gateway (a service) reaching for the commands. Never run. */
final class GatewayCallingTheCli {

    void run() {
        Shardflow.main(new String[] {"--help"});
    }
}
