package io.shardflow.reader;

import java.util.List;

/**
 * Makes every rank of a job read the same snapshots: given this rank's snapshot ids (one per
 * source) at an epoch's start, returns rank 0's. A job that pins its snapshots explicitly, or runs
 * one process, needs none ({@link #SINGLE_PROCESS}); a job whose ranks open the dataset at
 * different times, or follow it, passes rank 0's list to the others over its own channel (the
 * Python reader broadcasts it with {@code torch.distributed}).
 */
@FunctionalInterface
public interface SnapshotAgreement {

    /** One process, or ranks that pinned the same snapshots: every rank keeps its own. */
    SnapshotAgreement SINGLE_PROCESS = ids -> ids;

    List<Long> agree(List<Long> snapshotIds);
}
