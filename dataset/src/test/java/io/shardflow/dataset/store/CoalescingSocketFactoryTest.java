package io.shardflow.dataset.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * The buffered socket delivers every byte, in order, by the flush: a request written in pieces of any
 * size (okio writes 8 KiB segments, headers are smaller) is whole at the server before the client
 * waits for the answer, which comes back over the same socket.
 */
class CoalescingSocketFactoryTest {

    @Property(tries = 20)
    void everyByteWrittenArrivesByTheFlushAndTheAnswerComesBack(@ForAll @IntRange(min = 0, max = 3 << 20) int length,
            @ForAll @IntRange(min = 1, max = 70_000) int piece) throws Exception {
        byte[] request = new byte[length];
        new Random(length).nextBytes(request);
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<byte[]> received = CompletableFuture.supplyAsync(() -> serveOne(server));
            try (Socket socket = new CoalescingSocketFactory().createSocket(InetAddress.getLoopbackAddress(), server.getLocalPort())) {
                socket.setSoTimeout(20_000);
                DataOutputStream out = new DataOutputStream(socket.getOutputStream());
                out.writeInt(length);
                for (int at = 0; at < length; at += piece) {
                    out.write(request, at, Math.min(piece, length - at));
                }
                out.flush();
                // the server answers only once it has read the whole request: no byte may still sit in the buffer
                assertThat(new DataInputStream(socket.getInputStream()).readInt()).isEqualTo(length);
            }
            assertThat(received.get(30, TimeUnit.SECONDS)).isEqualTo(request);
        }
    }

    private static byte[] serveOne(ServerSocket server) {
        try (Socket socket = server.accept()) {
            socket.setSoTimeout(20_000);
            DataInputStream in = new DataInputStream(socket.getInputStream());
            byte[] body = new byte[in.readInt()];
            in.readFully(body);
            new DataOutputStream(socket.getOutputStream()).writeInt(body.length);
            return body;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
