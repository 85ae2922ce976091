package io.shardflow.stack;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialAlteration;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * The SCRAM users and the least-privilege ACLs of a secure stack (docs/ARCHITECTURE.md § 6 and
 * invariant 9). Both requests are idempotent, so a restarted stack applies them again harmlessly.
 */
final class StackAccess {

    static final String SAMPLES = "samples";
    static final String DEAD_LETTERS = "samples-dlq";
    static final String ASSIGNMENTS = "shard-assignments";
    /** ingest-app's default application.id: its group, Streams topics and transactional ids start with it. */
    static final String INGEST_APPLICATION_ID = "shardflow-ingest";
    static final String SINK_GROUP = "shardflow-shard-sink";
    private static final int SCRAM_ITERATIONS = 8192;

    private StackAccess() {
    }

    static void apply(Admin admin, Map<StackPrincipal, String> scramPasswords, Duration timeout) {
        List<UserScramCredentialAlteration> users = new ArrayList<>();
        scramPasswords.forEach((principal, password) -> users.add(new UserScramCredentialUpsertion(principal.id(),
                new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, SCRAM_ITERATIONS), password)));
        try {
            admin.alterUserScramCredentials(users).all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            admin.createAcls(bindings()).all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new StackException("cannot create the secure stack's users and ACLs: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StackException("interrupted while creating users and ACLs", e);
        }
    }

    /** What each service principal may do; nothing else is allowed (allow.everyone.if.no.acl.found=false). */
    static List<AclBinding> bindings() {
        List<AclBinding> acls = new ArrayList<>();
        StackPrincipal edge = StackPrincipal.EDGE;
        allow(acls, edge, ResourceType.TOPIC, SAMPLES, PatternType.LITERAL, AclOperation.WRITE, AclOperation.DESCRIBE);

        StackPrincipal ingest = StackPrincipal.INGEST;
        // DESCRIBE_CONFIGS lets the start-up check read samples' retention (docs/ARCHITECTURE.md § 1).
        allow(acls, ingest, ResourceType.TOPIC, SAMPLES, PatternType.LITERAL, AclOperation.READ, AclOperation.DESCRIBE,
                AclOperation.DESCRIBE_CONFIGS);
        allow(acls, ingest, ResourceType.TOPIC, DEAD_LETTERS, PatternType.LITERAL, AclOperation.WRITE, AclOperation.DESCRIBE);
        allow(acls, ingest, ResourceType.TOPIC, ASSIGNMENTS, PatternType.LITERAL, AclOperation.WRITE, AclOperation.DESCRIBE);
        allow(acls, ingest, ResourceType.TOPIC, INGEST_APPLICATION_ID, PatternType.PREFIXED, AclOperation.ALL);
        allow(acls, ingest, ResourceType.GROUP, INGEST_APPLICATION_ID, PatternType.PREFIXED, AclOperation.ALL);
        allow(acls, ingest, ResourceType.TRANSACTIONAL_ID, INGEST_APPLICATION_ID, PatternType.PREFIXED,
                AclOperation.WRITE, AclOperation.DESCRIBE);
        allow(acls, ingest, ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL,
                AclOperation.DESCRIBE, AclOperation.DESCRIBE_CONFIGS);

        StackPrincipal sink = StackPrincipal.SINK;
        allow(acls, sink, ResourceType.TOPIC, ASSIGNMENTS, PatternType.LITERAL, AclOperation.READ, AclOperation.DESCRIBE);
        // The sink reads the samples a decision names straight from the samples topic (by offset, no group).
        allow(acls, sink, ResourceType.TOPIC, SAMPLES, PatternType.LITERAL, AclOperation.READ, AclOperation.DESCRIBE);
        allow(acls, sink, ResourceType.GROUP, SINK_GROUP, PatternType.LITERAL, AclOperation.READ);
        return acls;
    }

    private static void allow(List<AclBinding> acls, StackPrincipal principal, ResourceType type, String name,
                              PatternType pattern, AclOperation... operations) {
        for (AclOperation operation : operations) {
            acls.add(new AclBinding(new ResourcePattern(type, name, pattern),
                    new AccessControlEntry(principal.kafkaPrincipal(), "*", operation, AclPermissionType.ALLOW)));
        }
    }
}
