package io.shardflow.stack;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Free ports for local servers, taken below the kernel's ephemeral range. A port the kernel hands
 * out for "any port" lies in that range, where every outgoing connection also takes its local port:
 * on a busy machine a server that binds its port a minute later (Keycloak's start under load took
 * 82 s) found it taken by some client. Below the range only another listener can take it.
 */
final class ListenPorts {

    private static final int LOWEST = 10_000;

    private ListenPorts() {
    }

    /** A listening socket on a free port of {@code host}; the caller closes it when the port is to be used. */
    static ServerSocket bind(String host) throws IOException {
        int ephemeralLow = ephemeralLow();
        if (ephemeralLow - LOWEST >= 2_000) {
            for (int attempt = 0; attempt < 200; attempt++) {
                int port = ThreadLocalRandom.current().nextInt(LOWEST, ephemeralLow);
                ServerSocket socket = new ServerSocket();
                try {
                    socket.bind(new InetSocketAddress(InetAddress.getByName(host), port));
                    return socket;
                } catch (IOException taken) {
                    socket.close();
                }
            }
        }
        ServerSocket socket = new ServerSocket(); // no room below the range (or all taken): any free port
        socket.bind(new InetSocketAddress(InetAddress.getByName(host), 0));
        return socket;
    }

    /** The first port of the kernel's ephemeral range (Linux), or 0 when it cannot be read. */
    static int ephemeralLow() {
        try {
            // Read as lines: Files.readString trusts the size /proc reports and returned one byte of it.
            String range = Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).get(0).trim();
            return Integer.parseInt(range.split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }
}
