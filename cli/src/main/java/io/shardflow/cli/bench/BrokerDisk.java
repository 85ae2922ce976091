package io.shardflow.cli.bench;

import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.ReplicaInfo;
import org.apache.kafka.common.Node;

/**
 * What the brokers hold on disk: the sum of every partition's size over every topic, internal
 * ones (consumer offsets, transaction state, Streams changelogs and repartition topics) included.
 * The difference across a run is the bytes the run made the brokers write (nothing is deleted by
 * retention in a run this short).
 */
public final class BrokerDisk {

    private BrokerDisk() {
    }

    public static long bytes(Admin admin) throws ExecutionException, InterruptedException {
        long total = 0;
        var brokers = admin.describeCluster().nodes().get().stream().map(Node::id).toList();
        for (var perBroker : admin.describeLogDirs(brokers).allDescriptions().get().values()) {
            for (LogDirDescription dir : perBroker.values()) {
                for (ReplicaInfo replica : dir.replicaInfos().values()) {
                    total += replica.size();
                }
            }
        }
        return total;
    }
}
