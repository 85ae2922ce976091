package io.shardflow.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeTopicsResult;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.internals.KafkaFutureImpl;
import org.junit.jupiter.api.Test;

class BenchCaseTest {

    /** The answers of describeTopics, one per call; the last one repeats. */
    private static Admin admin(AtomicInteger calls, List<Object> answers) {
        return (Admin) Proxy.newProxyInstance(Admin.class.getClassLoader(), new Class<?>[] {Admin.class}, (proxy, method, args) -> {
            if (!method.getName().equals("describeTopics")) {
                throw new UnsupportedOperationException(method.getName());
            }
            Object answer = answers.get(Math.min(calls.getAndIncrement(), answers.size() - 1));
            KafkaFutureImpl<TopicDescription> future = new KafkaFutureImpl<>();
            if (answer instanceof Throwable failure) {
                future.completeExceptionally(failure);
            } else {
                future.complete((TopicDescription) answer);
            }
            return new Answer(Map.of("t", future));
        });
    }

    private static final class Answer extends DescribeTopicsResult {
        Answer(Map<String, KafkaFuture<TopicDescription>> byName) {
            super(null, byName);
        }
    }

    private static TopicDescription led(Node leader) {
        return new TopicDescription("t", false, List.of(new TopicPartitionInfo(0, leader, List.of(), List.of())));
    }

    @Test
    void shouldAskAgainWhileTheBrokerDoesNotKnowTheNewTopicYet() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        Node broker = new Node(1, "127.0.0.1", 9092);
        Admin admin = admin(calls, List.of(new UnknownTopicOrPartitionException("not yet"), led(null), led(broker)));
        BenchCase.awaitLeaders(admin, List.of("t"));
        assertThat(calls).as("unknown, then without a leader, then led").hasValue(3);
    }

    @Test
    void shouldNotRetryAFailureThatWillNotPass() {
        Admin admin = admin(new AtomicInteger(), List.of(new TopicAuthorizationException("no")));
        assertThatThrownBy(() -> BenchCase.awaitLeaders(admin, List.of("t"))).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(TopicAuthorizationException.class);
    }
}
