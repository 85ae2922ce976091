/**
 * FAULT INJECTION for the chaos harness ({@code bin/shardflow chaos}); never set in production.
 *
 * <p>Two shard-sink settings, both empty by default (and then nothing here costs more than one read
 * of a final field per pass):
 * <ul>
 *   <li>{@code fault.injection.crash.points=point:probability[,...]}: at each pass through a listed
 *       point the process halts with exit code 137 and no cleanup, as kill -9 would leave it;</li>
 *   <li>{@code fault.injection.freeze.points=point:probability[,...]}: the process sends itself
 *       SIGSTOP there, and stays a zombie until someone sends SIGCONT (the harness does, after the
 *       consumer session timeout has moved its partitions to another instance).</li>
 * </ul>
 * Points, in protocol order: {@code mid-spool} (a record appended to an open shard's spool),
 * {@code before-upload} (the HDF5 file is built), {@code mid-upload} (while the shard's PUT is on
 * the wire), {@code after-upload} (between upload and commit-log entry), {@code after-commit}
 * (between the commit-log entry and the consumer offset commit). Example:
 * {@code fault.injection.crash.points=after-upload:0.02,after-commit:0.02}. The process prints
 * {@code FAULT INJECTION: crash point <point> reached} to stderr before halting, which is how the
 * harness tells an injected crash from a real one.
 */
package io.shardflow.sink.fault;
