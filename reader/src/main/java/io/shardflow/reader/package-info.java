/**
 * The Java trainer-side reader, by reading rules version 2 (docs/READING-RULES.md), bit for bit
 * the same as the Python reader (python/shardflow/reading/), checked against the shared vectors in
 * docs/reading-vectors.json.
 *
 * <ul>
 *   <li>{@link io.shardflow.reader.BatchLoader}: a trainer's batches epoch after epoch, made by
 *       {@code W} producer threads (the DataLoader workers of the rules) and handed out in order;
 *       follow and new-only at epoch boundaries; {@code state()} and {@code loadState()}.</li>
 *   <li>{@link io.shardflow.reader.DatasetReader}: one rank's samples of one epoch, one by one.</li>
 *   <li>{@link io.shardflow.reader.ReaderOptions}, {@link io.shardflow.reader.Mix},
 *       {@link io.shardflow.reader.ReadSource}: what is read and how.</li>
 *   <li>{@link io.shardflow.reader.ReadState}: the resume state ({@code shardflow.read-state/2},
 *       the Python reader's JSON): one consumed count that resumes on any world size.</li>
 * </ul>
 *
 * <p>The rules, one class each: {@code EpochOrder} (shard hash order, rows permuted in
 * SplitMix64-keyed blocks), {@code RankShare} (exact equal rank splits, batches, workers),
 * {@code MixedOrder} (apportioning and interleave of a mix), {@code ReadState} (the state).
 * {@code EpochPlan} and {@code EpochReader} pin snapshots per epoch; {@code WorkerBatches},
 * {@code RowReader} and {@code OrderedBatches} read the rows through the verified
 * {@link io.shardflow.reader.ShardCache}.
 */
package io.shardflow.reader;
