package io.shardflow.cli;

import picocli.CommandLine.Command;

/** {@code shardflow ckpt}: the training checkpoints that trainers save beside the data (runs/ in the bucket). */
@Command(name = "ckpt", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"List, show, verify, pin and collect training checkpoints: the model, optimizer and reader",
                "state that the Python trainer API (shardflow.checkpoints) saves under runs/<run>/step-<n>/ in the",
                "datasets' bucket, each tied to the dataset snapshots it was trained on. 'dataset expire' keeps",
                "every snapshot a saved checkpoint needs."},
        footerHeading = "%nExamples:%n",
        footer = {"  bin/shardflow ckpt list                          # runs",
                "  bin/shardflow ckpt list r7 --json                # saved steps of run r7",
                "  bin/shardflow ckpt show r7                       # the newest step: files, reader position, snapshots",
                "  bin/shardflow ckpt verify r7 --all",
                "  bin/shardflow ckpt pin r7 4000 --note \"best eval\"",
                "  bin/shardflow ckpt gc r7 --keep-last 3 --keep-every 10000 --dry-run"},
        subcommands = {CkptListCommand.class, CkptShowCommand.class, CkptVerifyCommand.class, CkptPinCommand.class,
                CkptGcCommand.class})
final class CkptCommand {
}
