/**
 * The read-only web console ({@code shardflow ui}): datasets, snapshots, shards, samples, dead letters and the
 * pipeline's health, served by an embedded Javalin server from the commit log and the shards it names
 * (docs/ARCHITECTURE.md § 8).
 */
package io.shardflow.console;
