package io.shardflow.stack;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

/**
 * The stack's TCP ports, all on 127.0.0.1. They are fixed for the life of a work dir's stack, so a
 * server restarted by a chaos test comes back where its clients expect it.
 *
 * @param broker     Kafka PLAINTEXT listener (the bootstrap servers)
 * @param controller Kafka KRaft controller listener
 * @param registry   Apicurio Registry HTTP
 * @param s3         S3 API
 * @param s3Console  MinIO console (unused by S3Proxy, allocated anyway to keep one shape)
 * @param brokerTls  Kafka SSL listener with client certificates (mTLS) of a secure stack (unused by a
 *                   plain one); 0 in a state file written before it existed
 * @param idp        the identity provider's (Keycloak's) https port of a secure stack (unused by a plain
 *                   one); 0 in a state file written before it existed
 */
public record StackPorts(int broker, int controller, int registry, int s3, int s3Console, int brokerTls, int idp) {

    static final String HOST = "127.0.0.1";

    public StackPorts {
        for (int port : List.of(broker, controller, registry, s3, s3Console)) {
            if (port < 1 || port > 65_535) {
                throw new IllegalArgumentException("port out of range: " + port);
            }
        }
        for (int port : List.of(brokerTls, idp)) {
            if (port < 0 || port > 65_535) {
                throw new IllegalArgumentException("port out of range: " + port);
            }
        }
    }

    /** Ports without an identity provider's (a plain stack's shape before it existed). */
    public StackPorts(int broker, int controller, int registry, int s3, int s3Console, int brokerTls) {
        this(broker, controller, registry, s3, s3Console, brokerTls, 0);
    }

    /**
     * Picks seven distinct free ports below the ephemeral range ({@link ListenPorts}). Holding all
     * sockets open until the end keeps them distinct; another listener may still take one before our
     * server binds it, a race we accept for tests.
     */
    static StackPorts allocate() {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < 7; i++) {
                sockets.add(ListenPorts.bind(HOST));
            }
            int[] p = sockets.stream().mapToInt(ServerSocket::getLocalPort).toArray();
            return new StackPorts(p[0], p[1], p[2], p[3], p[4], p[5], p[6]);
        } catch (IOException e) {
            throw new StackException("cannot allocate free ports on " + HOST, e);
        } finally {
            for (ServerSocket socket : sockets) {
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // closing an unconnected listener cannot lose data
                }
            }
        }
    }

    /** True when every port can be bound now, i.e. a previous stack's ports can be reused. */
    boolean allFree() {
        return brokerTls > 0 && idp > 0
                && IntStream.of(broker, controller, registry, s3, s3Console, brokerTls, idp).allMatch(StackPorts::isFree);
    }

    private static boolean isFree(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(InetAddress.getByName(HOST), port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
