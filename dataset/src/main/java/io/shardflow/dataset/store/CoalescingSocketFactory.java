package io.shardflow.dataset.store;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import javax.net.SocketFactory;

/**
 * Plain-text sockets whose output reaches the kernel in writes of up to {@link #WRITE_BUFFER} bytes.
 * The HTTP client (okio) hands a request body to the socket one 8 KiB segment at a time, and each
 * segment was one {@code write} system call: a 16 MiB shard upload made 2,000 of them, each with the
 * kernel's fixed cost per call and, on one host, per packet. Buffered here, the same bytes go in 32
 * times fewer calls. Nothing waits in the buffer past a flush, and the HTTP client flushes each request
 * before it reads the answer, so requests and their timing are unchanged. Used for {@code http://}
 * endpoints only (see {@link S3Clients}); TLS writes its own records.
 */
final class CoalescingSocketFactory extends SocketFactory {

    /** Bytes gathered before a write: 32 okio segments, held once per open connection. */
    static final int WRITE_BUFFER = 256 << 10;

    @Override
    public Socket createSocket() {
        return new CoalescingSocket();
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
        return connected(new InetSocketAddress(host, port));
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localAddress, int localPort) throws IOException {
        return connected(new InetSocketAddress(host, port), new InetSocketAddress(localAddress, localPort));
    }

    @Override
    public Socket createSocket(InetAddress address, int port) throws IOException {
        return connected(new InetSocketAddress(address, port));
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort) throws IOException {
        return connected(new InetSocketAddress(address, port), new InetSocketAddress(localAddress, localPort));
    }

    private static Socket connected(InetSocketAddress remote, InetSocketAddress... local) throws IOException {
        Socket socket = new CoalescingSocket();
        try {
            if (local.length > 0) {
                socket.bind(local[0]);
            }
            socket.connect(remote);
            return socket;
        } catch (IOException e) {
            socket.close();
            throw e;
        }
    }

    /** A socket whose one output stream buffers {@link #WRITE_BUFFER} bytes; everything else is the plain socket's. */
    static final class CoalescingSocket extends Socket {

        private OutputStream output;

        @Override
        public synchronized OutputStream getOutputStream() throws IOException {
            if (output == null) {
                output = new BufferedOutputStream(super.getOutputStream(), WRITE_BUFFER);
            }
            return output;
        }
    }
}
