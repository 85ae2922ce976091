package io.shardflow.gateway.http;

import io.javalin.Javalin;
import io.javalin.http.Context;
import io.shardflow.gateway.parse.BadRequest;
import io.shardflow.gateway.publish.InflightBudget;
import java.time.Duration;
import org.eclipse.jetty.server.ForwardedRequestCustomizer;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The API's HTTP server: Javalin on Jetty 12, one listener (TLS when a key store is configured),
 * the routes of {@code openapi.json}, and the protections a public listener needs: a connection
 * limit and an idle timeout here, a minimum body data rate in {@link BodyPace} (a slow body is
 * refused, its thread freed). Every refusal is a problem-details answer; an unexpected exception is logged and
 * answered 500 (a bug: the contract has no 5xx but 503).
 */
public final class GatewayServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(GatewayServer.class);
    public static final String SAMPLES = "/v1/datasets/{dataset}/versions/{version}/samples";
    public static final String SPEC = "/v1/datasets/{dataset}/versions/{version}/spec";
    public static final String OPENAPI = "/openapi.json";

    private final Javalin app;
    private final InflightBudget budget;

    /**
     * @param ssl  null for plain HTTP
     * @param pace the floor on how fast a body arrives, also while a refused one is drained
     */
    public record Listener(String host, int port, SslContextFactory.Server ssl, Duration idleTimeout, int maxConnections,
                           long maxRequestBytes, BodyPace pace, boolean forwarded) {
    }

    GatewayServer(Listener listener, SamplesEndpoint samples, SpecEndpoint spec, String openApi, GatewayMetrics metrics, InflightBudget budget) {
        this.budget = budget;
        this.app = Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            config.startup.showOldJavalinVersionWarning = false;
            config.http.prefer405over404 = true;
            config.jetty.modifyHttpConfiguration(http -> {
                http.setSendServerVersion(false);
                http.setIdleTimeout(listener.idleTimeout().toMillis());
                if (listener.forwarded()) {
                    http.addCustomizer(new ForwardedRequestCustomizer());
                }
            });
            config.jetty.addConnector((server, http) -> connector(server, http, listener));
            config.jetty.modifyServer(server -> {
                server.addBean(new NetworkConnectionLimit(listener.maxConnections(), server));
                server.setErrorHandler(new ProblemErrorHandler());
            });
            config.jetty.modifyServletContextHandler(context -> context.setErrorHandler(new ProblemErrorHandler()));
            config.routes.post(SAMPLES, samples::handle);
            config.routes.get(SPEC, spec::handle);
            config.routes.get(OPENAPI, ctx -> ctx.contentType("application/json").result(openApi));
            config.routes.exception(BadRequest.class, (e, ctx) -> {
                if (e.status() == 408 || "BODY_NOT_READ".equals(e.code())) {
                    ctx.header("Connection", "close"); // the body itself failed: nothing more of it is worth waiting for
                } else {
                    drain(ctx, listener);
                }
                send(ctx, Problem.of(e.status(), e.code(), e.getMessage()));
            });
            config.routes.exception(SamplesEndpoint.Refused.class, (e, ctx) -> {
                drain(ctx, listener);
                send(ctx, e.problem);
            });
            config.routes.exception(Exception.class, (e, ctx) -> {
                LOG.error("unexpected failure on {} {}", ctx.method(), ctx.path(), e);
                send(ctx, Problem.of(500, "INTERNAL_ERROR", "the gateway failed unexpectedly; nothing was acknowledged"));
            });
            config.routes.after(ctx -> metrics.answered(ctx.statusCode()));
        });
    }

    /**
     * Reads and drops what is left of a refused request's body (at most {@code request.max.bytes}, a small
     * buffer at a time), so the client, still sending, reads the refusal instead of a reset
     * connection; a larger body is not worth the bandwidth and the connection is closed, and so is
     * one arriving slower than the listener's {@link BodyPace}.
     */
    private static void drain(Context ctx, Listener listener) {
        long declared = ctx.req().getContentLengthLong();
        if (declared > listener.maxRequestBytes()) {
            ctx.header("Connection", "close");
            return;
        }
        try {
            var in = ctx.req().getInputStream();
            byte[] buffer = new byte[16 * 1024];
            long started = listener.pace().now();
            long drained = 0;
            while (drained < listener.maxRequestBytes() && !in.isFinished()) {
                int n = in.read(buffer, 0, (int) Math.min(buffer.length, listener.maxRequestBytes() - drained));
                if (n < 0) {
                    break;
                }
                drained += n;
                listener.pace().check(drained, started);
            }
        } catch (java.io.IOException | RuntimeException e) {
            ctx.header("Connection", "close"); // the body cannot be read: the connection is not reusable
        }
    }

    private static void send(Context ctx, Problem problem) {
        if (problem.status() == 401) {
            ctx.header("WWW-Authenticate", "Bearer");
        }
        problem.send(ctx);
    }

    private static ServerConnector connector(Server server, HttpConfiguration http, Listener listener) {
        ServerConnector connector;
        if (listener.ssl() == null) {
            connector = new ServerConnector(server, new HttpConnectionFactory(http));
        } else {
            HttpConfiguration https = new HttpConfiguration(http);
            SecureRequestCustomizer secure = new SecureRequestCustomizer();
            secure.setSniHostCheck(false); // devices may connect by address; the certificate names the service
            https.addCustomizer(secure);
            connector = new ServerConnector(server, new SslConnectionFactory(listener.ssl(), "http/1.1"), new HttpConnectionFactory(https));
        }
        connector.setHost(listener.host());
        connector.setPort(listener.port());
        connector.setIdleTimeout(listener.idleTimeout().toMillis());
        return connector;
    }

    public GatewayServer start() {
        app.start();
        LOG.info("edge-gateway listening on port {}", port());
        return this;
    }

    public int port() {
        return ((ServerConnector) app.jettyServer().server().getConnectors()[0]).getLocalPort();
    }

    /**
     * Stops taking connections, waits up to {@code timeout} for the requests in hand to answer (their
     * memory reservations to come back), then stops the server: a request answered 2xx was
     * acknowledged; one cut off got no answer, and its client retries.
     */
    public void close(Duration timeout) {
        for (var connector : app.jettyServer().server().getConnectors()) {
            if (connector instanceof ServerConnector server) {
                server.shutdown();
            }
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        while (budget.reservedBytes() > 0 && System.nanoTime() < deadline) {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        if (budget.reservedBytes() > 0) {
            LOG.warn("stopping with {} bytes of requests still in hand after {} ms", budget.reservedBytes(), timeout.toMillis());
        }
        app.stop();
    }

    @Override
    public void close() {
        close(Duration.ZERO);
    }
}
