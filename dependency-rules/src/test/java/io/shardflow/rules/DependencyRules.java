package io.shardflow.rules;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.lang.ArchRule;

/**
 * What each module may import (docs/ARCHITECTURE.md § 2 Modules and dependency rules; it names the packages of each module), by package:
 * schemas {@code io.shardflow.schemas}, dataset {@code io.shardflow.dataset}, reader
 * {@code io.shardflow.reader}, edge-client {@code io.shardflow.edge}, app-common
 * {@code io.shardflow.app}, ingest-app {@code io.shardflow.ingest}, shard-sink
 * {@code io.shardflow.sink}, edge-gateway {@code io.shardflow.gateway}, local-stack {@code io.shardflow.stack},
 * chaos {@code io.shardflow.chaos}, console {@code io.shardflow.console}, cli {@code io.shardflow.cli}. The cli may import
 * everything; nothing imports the cli.
 */
final class DependencyRules {

    static final String[] SERVICES = {"io.shardflow.ingest..", "io.shardflow.sink..", "io.shardflow.gateway..", "io.shardflow.app.."};
    static final String[] TEST_TOOLING = {"io.shardflow.stack..", "io.shardflow.chaos.."};
    static final String[] PRODUCTION = {"io.shardflow.schemas..", "io.shardflow.dataset..", "io.shardflow.reader..",
            "io.shardflow.edge..", "io.shardflow.app..", "io.shardflow.ingest..", "io.shardflow.sink..", "io.shardflow.gateway..",
            "io.shardflow.console.."};

    /** The services carry neither the trainer reader nor any tooling. */
    static final ArchRule SERVICES_STAY_SERVICES = noClasses().that().resideInAnyPackage(SERVICES)
            .should().dependOnClassesThat().resideInAnyPackage("io.shardflow.reader..", "io.shardflow.chaos..",
                    "io.shardflow.stack..", "io.shardflow.cli..", "io.shardflow.console..")
            .because("ingest-app, shard-sink and edge-gateway ship alone: no reader, chaos harness, local stack, console or commands");

    /**
     * The console reads what the pipeline wrote (the format, the reader, the topics) and is no part of it:
     * it never calls into a service, and only the cli starts it.
     */
    static final ArchRule CONSOLE_ONLY_READS = noClasses().that().resideInAPackage("io.shardflow.console..")
            .should().dependOnClassesThat().resideInAnyPackage("io.shardflow.ingest..", "io.shardflow.sink..",
                    "io.shardflow.edge..", "io.shardflow.gateway..", "io.shardflow.stack..", "io.shardflow.chaos..", "io.shardflow.cli..")
            .because("the web console is read-only: the format, the reader and Kafka clients, never a service or tooling");

    /** Fault injection, local servers and process spawning are test tooling, never product. */
    static final ArchRule PRODUCTION_HAS_NO_TEST_TOOLING = noClasses().that().resideInAnyPackage(PRODUCTION)
            .should().dependOnClassesThat().resideInAnyPackage(TEST_TOOLING)
            .because("no production code may reach the chaos harness or the local stack");

    /** The format is the bottom layer: services, tooling and readers build on it, never the reverse. */
    static final ArchRule DATASET_IS_THE_FORMAT_ONLY = noClasses().that().resideInAnyPackage("io.shardflow.dataset..")
            .should().dependOnClassesThat().resideInAnyPackage("io.shardflow.reader..", "io.shardflow.edge..",
                    "io.shardflow.app..", "io.shardflow.ingest..", "io.shardflow.sink..", "io.shardflow.gateway..", "io.shardflow.stack..",
                    "io.shardflow.chaos..", "io.shardflow.cli..")
            .because("dataset is the storage format every other module shares");

    /** The wire contract stands alone: producers in any language depend on it, it depends on nothing of ours. */
    static final ArchRule SCHEMAS_STAND_ALONE = noClasses().that().resideInAPackage("io.shardflow.schemas..")
            .should().dependOnClassesThat().resideInAnyPackage("io.shardflow.dataset..", "io.shardflow.reader..",
                    "io.shardflow.edge..", "io.shardflow.app..", "io.shardflow.ingest..", "io.shardflow.sink..", "io.shardflow.gateway..",
                    "io.shardflow.stack..", "io.shardflow.chaos..", "io.shardflow.cli..")
            .because("schemas is the wire contract and imports no other module");

    /** The trainer reader reads the format and nothing of the pipeline. */
    static final ArchRule READER_NEEDS_ONLY_THE_FORMAT = noClasses().that().resideInAPackage("io.shardflow.reader..")
            .should().dependOnClassesThat().resideInAnyPackage("io.shardflow.edge..", "io.shardflow.app..",
                    "io.shardflow.ingest..", "io.shardflow.sink..", "io.shardflow.gateway..", "io.shardflow.stack..", "io.shardflow.chaos..",
                    "io.shardflow.cli..")
            .because("trainers depend on the reader alone");

    /** Commands sit on top; the local stack is below the chaos harness. */
    static final ArchRule NOTHING_IMPORTS_COMMANDS = noClasses().that().resideOutsideOfPackage("io.shardflow.cli..")
            .should().dependOnClassesThat().resideInAPackage("io.shardflow.cli..")
            .because("the cli holds commands only; tests and tooling use the modules under it");

    /** The services are independent processes: none reaches into another's code (shared rules live in app-common). */
    static final ArchRule SERVICES_STAY_APART = noClasses().that().resideInAPackage("io.shardflow.gateway..")
            .should().dependOnClassesThat().resideInAnyPackage("io.shardflow.ingest..", "io.shardflow.sink..")
            .because("edge-gateway shares ingest-app's validation through app-common, never by importing ingest-app");

    static final ArchRule STACK_BELOW_CHAOS = noClasses().that().resideInAPackage("io.shardflow.stack..")
            .should().dependOnClassesThat().resideInAnyPackage("io.shardflow.chaos..", "io.shardflow.reader..")
            .because("local-stack runs servers and services; the harness builds on it");

    private DependencyRules() {
    }
}
