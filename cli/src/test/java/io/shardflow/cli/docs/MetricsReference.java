package io.shardflow.cli.docs;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.shardflow.app.ServiceMeters;
import io.shardflow.gateway.health.Readiness;
import io.shardflow.gateway.http.GatewayMetrics;
import io.shardflow.gateway.publish.InflightBudget;
import io.shardflow.ingest.topology.IngestMetrics;
import io.shardflow.sink.SinkMeters;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * docs/reference/metrics.md from the meters the services register: each service's own meters are
 * registered the way the service does it ({@link IngestMetrics}, {@link SinkMeters}) into a Prometheus
 * registry, and the page lists what its scrape shows. JVM and process meters come from
 * {@link ServiceMeters}; the Kafka client meters are named by rule (their set depends on the client).
 */
final class MetricsReference {

    /** Registered only once a collection or a concurrent phase has happened, so absent from a fresh registry. */
    private static final Set<String> REGISTERED_ON_FIRST_COLLECTION = Set.of("jvm_gc_pause_seconds", "jvm_gc_concurrent_phase_time_seconds");

    private MetricsReference() {
    }

    static String page() {
        StringBuilder out = new StringBuilder(Markdown.generatedBanner("Metrics reference",
                "the meters ingest-app, shard-sink and edge-gateway register (IngestMetrics, SinkMeters, GatewayMetrics, ServiceMeters)"));
        out.append("With `metrics.port` set, each service serves these in the Prometheus text format on `/metrics`, ")
                .append("beside `/health` and `/ready` (see the [configuration reference](configuration.md)). ")
                .append("Counters end in `_total`; a timer is a histogram in seconds (`_bucket`, `_count`, `_sum`) and a `_max` gauge. ")
                .append("The [dashboard and alerts](../operating/monitoring.md) use only meters listed here and the Kafka client meters.\n\n");
        out.append("## ingest-app\n\n").append(families(registry -> new IngestMetrics(registry), "shardflow_"));
        out.append("## shard-sink\n\n").append(families(SinkMeters::register, "shardflow_"));
        out.append("## edge-gateway\n\n").append("Its counters appear with their first request; their labels are shown here with one value each.\n\n")
                .append(families(registry -> {
                    GatewayMetrics gateway = new GatewayMetrics(registry, new InflightBudget(1));
                    gateway.answered(200);
                    gateway.samples("accepted", "", 1);
                    new Readiness(() -> { }, () -> { }, Duration.ofSeconds(5), Duration.ofSeconds(15), System::nanoTime).bind(registry);
                }, "shardflow_"));
        out.append("## Every service\n\n").append(families(registry -> ServiceMeters.bind(registry, () -> true), "shardflow_"));
        out.append("### JVM and process\n\n");
        out.append("From Micrometer's binders ")
                .append(ServiceMeters.standardBinders().stream().map(MeterBinder::getClass).map(Class::getSimpleName)
                        .map(Markdown::code).collect(Collectors.joining(", ")))
                .append(". The labels' values (memory pools, buffer pools, thread states) depend on the JVM and its collector. ")
                .append(REGISTERED_ON_FIRST_COLLECTION.stream().sorted().map(Markdown::code).collect(Collectors.joining(" and ")))
                .append(" appear after the first collection that reports them.\n\n");
        out.append(families(registry -> ServiceMeters.bind(registry, () -> true), "jvm_", "process_", "system_"));
        out.append("### Kafka clients\n\n")
                .append("ingest-app binds Micrometer's `KafkaStreamsMetrics` (every metric of its Kafka Streams client and of the ")
                .append("consumers, producer and admin client inside it); shard-sink binds `KafkaClientMetrics` to its ")
                .append("`shard-assignments` consumer. Each Kafka metric `NAME` of group `GROUP-metrics` is served as ")
                .append("`kafka_GROUP_NAME` (dots and dashes as underscores), labelled with `client_id`, `kafka_version` and ")
                .append("the metric's own tags (`topic`, `partition`, `thread_id`, ...). The lag of each lane is ")
                .append("`kafka_consumer_fetch_manager_records_lag{topic, partition}`: ingest-app's on `samples` (its ")
                .append("`-restore-consumer` clients restore state stores), shard-sink's on `shard-assignments`. New ")
                .append("partition meters appear within a minute of an assignment.\n");
        return out.toString();
    }

    private static String families(Consumer<MeterRegistry> register, String... prefixes) {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        register.accept(registry);
        List<List<String>> rows = new ArrayList<>();
        for (ScrapeFamilies.Family family : ScrapeFamilies.parse(registry.scrape())) {
            if (!startsWithAny(family.name(), prefixes) || REGISTERED_ON_FIRST_COLLECTION.contains(family.name())) {
                continue;
            }
            String series = family.series().stream().map(Markdown::code).collect(Collectors.joining(", "));
            rows.add(List.of(series, family.type(), Markdown.cell(family.labelsText()), Markdown.cell(family.help())));
        }
        registry.close();
        return Markdown.table(List.of("series", "type", "labels", "description"), rows);
    }

    private static boolean startsWithAny(String name, String... prefixes) {
        for (String prefix : prefixes) {
            if (name.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }
}
