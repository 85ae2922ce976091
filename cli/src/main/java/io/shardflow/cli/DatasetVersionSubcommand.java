package io.shardflow.cli;

import picocli.CommandLine.Parameters;

/** A {@code dataset} subcommand about one dataset version: its first two arguments are NAME and VERSION. */
abstract class DatasetVersionSubcommand extends DatasetSubcommand {

    @Parameters(index = "0", paramLabel = "NAME", description = "dataset name")
    String name;
    @Parameters(index = "1", paramLabel = "VERSION", description = "dataset version")
    String version;
}
