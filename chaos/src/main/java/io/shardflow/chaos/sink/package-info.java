/**
 * FAULT INJECTION for the chaos harness ({@code bin/shardflow chaos}); never part of a production
 * shard-sink, and no sink setting can switch it on.
 *
 * <p>The harness launches {@link io.shardflow.chaos.sink.FaultInjectingSinkApp} instead of
 * {@code ShardSinkApp}: the same sink, built with {@link io.shardflow.chaos.sink.CrashPoints} as its
 * {@code SinkHook}. Two arguments say where it fails:
 * <ul>
 *   <li>{@code --crash-points=point:probability[,...]}: at each pass through a listed point the
 *       process halts with exit code 137 and no cleanup, as kill -9 would leave it;</li>
 *   <li>{@code --freeze-points=point:probability[,...]}: the process sends itself SIGSTOP there, and
 *       stays a zombie until someone sends SIGCONT (the harness does, after the consumer session
 *       timeout has moved its partitions to another instance).</li>
 * </ul>
 * Points, in protocol order: {@code mid-spool} (a record appended to an open shard's spool),
 * {@code before-upload} (the HDF5 file is built), {@code mid-upload} (while the shard's PUT is on
 * the wire), {@code after-upload} (between upload and commit-log entry), {@code after-commit}
 * (between the commit-log entry and the consumer offset commit). Example:
 * {@code --crash-points=after-upload:0.02,after-commit:0.02}. The process prints
 * {@code FAULT INJECTION: crash point <point> reached} to stderr before halting, which is how the
 * harness tells an injected crash from a real one.
 */
package io.shardflow.chaos.sink;
