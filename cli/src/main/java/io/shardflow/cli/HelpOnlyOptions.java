package io.shardflow.cli;

import picocli.CommandLine.Option;

/**
 * {@code -h/--help} and {@code -V} for the commands whose {@code --version} names a dataset version
 * (publish, dataset create), where picocli's standard {@code --version} would collide.
 */
final class HelpOnlyOptions {

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help message and exit.")
    boolean help;

    @Option(names = "-V", versionHelp = true, description = "Print the shardflow version and exit.")
    boolean version;
}
