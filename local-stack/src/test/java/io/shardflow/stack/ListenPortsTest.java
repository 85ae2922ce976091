package io.shardflow.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

class ListenPortsTest {

    @Test
    void shouldTakePortsBelowTheEphemeralRangeWhereClientsTakeTheirs() throws Exception {
        Assumptions.assumeTrue(Files.isReadable(Path.of("/proc/sys/net/ipv4/ip_local_port_range")), "Linux only");
        int low = ListenPorts.ephemeralLow();
        assertThat(low).as("the first port of the kernel's ephemeral range").isGreaterThan(1024);
        for (int i = 0; i < 20; i++) {
            try (ServerSocket socket = ListenPorts.bind(StackPorts.HOST)) {
                assertThat(socket.getLocalPort()).isBetween(10_000, low - 1);
            }
        }
        StackPorts ports = StackPorts.allocate();
        assertThat(java.util.List.of(ports.broker(), ports.controller(), ports.registry(), ports.s3(), ports.s3Console(),
                ports.brokerTls(), ports.idp())).allMatch(port -> port < low).doesNotHaveDuplicates();
    }
}
