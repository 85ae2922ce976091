package io.shardflow.console;

import io.javalin.Javalin;
import io.javalin.http.HttpResponseException;
import io.javalin.http.HttpStatus;
import io.shardflow.console.data.DatasetAccess;
import io.shardflow.console.data.SamplePager;
import io.shardflow.console.data.SnapshotStatistics;
import io.shardflow.console.data.StatsStore;
import io.shardflow.console.dlq.DeadLetterReader;
import io.shardflow.console.dlq.PayloadDecoder;
import io.shardflow.console.dlq.RedriveAudit;
import io.shardflow.console.ops.ConsumerLag;
import io.shardflow.console.ops.SealReasons;
import io.shardflow.console.views.DatasetViews;
import io.shardflow.console.views.DeadLetterView;
import io.shardflow.console.views.DiffView;
import io.shardflow.console.views.OperationsView;
import io.shardflow.console.views.RunsView;
import io.shardflow.console.views.SampleViews;
import io.shardflow.console.views.ShardViews;
import io.shardflow.console.views.SnapshotViews;
import io.shardflow.console.web.Html;
import io.shardflow.console.web.Layout;
import io.shardflow.console.web.Params;
import io.shardflow.dataset.runs.TrainingCheckpoints;
import io.shardflow.dataset.store.ObjectStore;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The web console: an embedded Javalin (Jetty) server with GET routes only, rendering HTML on the server
 * from the dataset module's reads (docs/ARCHITECTURE.md § 8). Every request first passes the
 * {@link AccessGuard}. Nothing here writes to the bucket or to Kafka.
 */
public final class ConsoleServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ConsoleServer.class);

    private final Javalin app;
    private final List<AutoCloseable> resources;

    private ConsoleServer(Javalin app, List<AutoCloseable> resources) {
        this.app = app;
        this.resources = resources;
    }

    /** Starts the server; {@code registrySerde} is the registry's serde settings, or null to show dead letters undecoded. */
    public static ConsoleServer start(ConsoleSettings settings, ObjectStore store, Map<String, Object> registrySerde, Clock clock) {
        List<AutoCloseable> resources = new ArrayList<>();
        DatasetAccess access = new DatasetAccess(store, settings.cacheDir(), settings.shardCacheBytes(), 64, clock);
        SnapshotStatistics statistics = new SnapshotStatistics(access, new StatsStore(settings.cacheDir()));
        resources.add(statistics);
        Optional<DeadLetterReader> dlq = settings.kafka().map(k -> new DeadLetterReader(k, k.dlqTopic(), Duration.ofSeconds(10)));
        Optional<SealReasons> seals = settings.kafka().map(k -> new SealReasons(k, access));
        Optional<ConsumerLag> lag = settings.kafka().map(ConsumerLag::new);
        dlq.ifPresent(resources::add);
        seals.ifPresent(resources::add);
        lag.ifPresent(resources::add);
        PayloadDecoder decoder = new PayloadDecoder(registrySerde);
        resources.add(decoder);

        SnapshotViews snapshots = new SnapshotViews(access, statistics);
        DatasetViews datasets = new DatasetViews(access);
        DiffView diff = new DiffView(access, snapshots);
        ShardViews shards = new ShardViews(access, statistics, seals);
        SampleViews samples = new SampleViews(access, new SamplePager(access, statistics, 8), snapshots);
        DeadLetterView deadLetters = new DeadLetterView(dlq, decoder, new RedriveAudit(store));
        OperationsView operations = new OperationsView(access, settings.services(), lag);
        RunsView runs = new RunsView(new TrainingCheckpoints(store));
        AccessGuard guard = new AccessGuard(settings.credentials());

        Javalin app = Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            config.startup.showOldJavalinVersionWarning = false;
            config.jetty.host = settings.bind();
            config.jetty.port = settings.port();
            config.routes.before(guard);
            config.routes.get("/", datasets::index);
            config.routes.get("/datasets/{dataset}/{version}", datasets::version);
            config.routes.get("/datasets/{dataset}/{version}/diff", diff::diff);
            config.routes.get("/datasets/{dataset}/{version}/quarantine", shards::quarantine);
            config.routes.get("/datasets/{dataset}/{version}/snapshots/{snapshot}", snapshots::snapshot);
            config.routes.get("/datasets/{dataset}/{version}/snapshots/{snapshot}/samples", samples::grid);
            config.routes.get("/datasets/{dataset}/{version}/shards/{lane}/{shard}", shards::shard);
            config.routes.get("/datasets/{dataset}/{version}/shards/{lane}/{shard}/rows/{row}", samples::sample);
            config.routes.get("/datasets/{dataset}/{version}/shards/{lane}/{shard}/rows/{row}/tensors/{tensor}/picture", samples::picture);
            config.routes.get("/dead-letters", deadLetters::list);
            config.routes.get("/dead-letters/{partition}/{offset}", deadLetters::detail);
            config.routes.get("/operations", operations::page);
            config.routes.get("/runs", runs::list);
            config.routes.get("/runs/{run}", runs::run);
            config.routes.get("/static/console.css", ctx -> ctx.contentType("text/css; charset=utf-8").result(resource("console.css")));
            config.routes.get("/static/console.js", ctx -> ctx.contentType("text/javascript; charset=utf-8").result(resource("console.js")));
            config.routes.get("/health", ctx -> ctx.result("ok\n"));
            config.routes.exception(Params.BadRequest.class, (e, ctx) -> error(ctx, HttpStatus.BAD_REQUEST, e.getMessage()));
            config.routes.exception(HttpResponseException.class, (e, ctx) -> error(ctx, HttpStatus.forStatus(e.getStatus()), e.getMessage()));
            config.routes.exception(Exception.class, (e, ctx) -> {
                log.warn("Request {} failed", ctx.path(), e);
                error(ctx, HttpStatus.INTERNAL_SERVER_ERROR, e.getClass().getSimpleName() + ": " + e.getMessage());
            });
            config.routes.error(404, ctx -> {
                if (ctx.result() == null || ctx.result().isEmpty()) {
                    error(ctx, HttpStatus.NOT_FOUND, "no such page: " + ctx.path());
                }
            });
        });
        app.start();
        log.info("Console listening on http://{}:{}/ ({})", settings.bind(), app.port(),
                settings.credentials().isPresent() ? "credentials required" : "loopback only, no credentials");
        return new ConsoleServer(app, resources);
    }

    public int port() {
        return app.port();
    }

    private static void error(io.javalin.http.Context ctx, HttpStatus status, String message) {
        ctx.status(status).html(Layout.page(status.getCode() + " " + status.getMessage(), List.of(Layout.crumb("datasets", "/")),
                "<p id=\"error\">" + Html.text(message) + "</p>"));
    }

    private static byte[] resource(String name) {
        try (InputStream in = ConsoleServer.class.getResourceAsStream("/console/" + name)) {
            if (in == null) {
                throw new IllegalStateException("missing resource /console/" + name);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        app.stop();
        for (AutoCloseable resource : resources) {
            try {
                resource.close();
            } catch (Exception e) {
                log.warn("Closing {} failed: {}", resource.getClass().getSimpleName(), e.toString());
            }
        }
    }
}
