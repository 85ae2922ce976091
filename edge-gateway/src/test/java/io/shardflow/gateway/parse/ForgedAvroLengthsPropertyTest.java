package io.shardflow.gateway.parse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.time.Instant;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;

/**
 * A binary body is a few bytes that claim a huge length: a tensor's data, a string, the tensor
 * array. Avro's reader sizes its buffer by the claim before it reads a byte, so without
 * {@link AvroSamples#limitAvroAllocations} it would allocate up to 2 GiB (or 8 GiB for an array of
 * references) per request, and a large heap would let it, then fail on the missing bytes with a
 * 400 all the same. So the answer alone proves nothing: this test measures what the parsing thread
 * allocated, which must stay far below every claim.
 */
class ForgedAvroLengthsPropertyTest {

    private static final long LIMIT = 1 << 20;
    private static final long MOST_A_REFUSAL_MAY_ALLOCATE = 8L << 20;
    private static final RequestContext CONTEXT = new RequestContext("cams", "v1", "phone-1", Instant.EPOCH, 10);
    private static final com.sun.management.ThreadMXBean THREADS = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    static {
        AvroSamples.limitAvroAllocations(LIMIT);
    }

    private final AvroSamples avro = new AvroSamples();

    enum Field { TENSOR_DATA, SAMPLE_ID, TENSOR_ARRAY }

    @Property(tries = 60)
    void shouldRefuseAForgedLengthWithoutAllocatingIt(@ForAll Field field, @ForAll("claims") long claim) throws IOException {
        byte[] body = forged(field, field == Field.TENSOR_ARRAY ? claim / 8 : claim);
        assertThat(body.length).isLessThan(64);

        long before = THREADS.getCurrentThreadAllocatedBytes();
        assertThatThrownBy(() -> avro.parse(body, CONTEXT)).isInstanceOfSatisfying(BadRequest.class, e -> assertThat(e.status()).isEqualTo(400));
        long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;

        assertThat(allocated).as("bytes allocated to refuse a %s claiming %d", field, claim).isLessThan(MOST_A_REFUSAL_MAY_ALLOCATE);
    }

    /** Claims from 64 MiB to almost 2 GiB: each one far past the limit and far past what a refusal may cost. */
    @Provide
    Arbitrary<Long> claims() {
        return Arbitraries.longs().between(64L << 20, Integer.MAX_VALUE - 64L);
    }

    /** A Sample datum written field by field, honest up to {@code field}, which claims {@code length} and then ends. */
    private static byte[] forged(Field field, long length) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        encoder.writeString("cams");
        encoder.writeString("v1");
        if (field == Field.SAMPLE_ID) {
            encoder.writeLong(length);
            encoder.writeFixed(new byte[] {'a', 'b'});
            encoder.flush();
            return out.toByteArray();
        }
        encoder.writeString("s-1");
        encoder.writeString("");
        encoder.writeLong(0); // producedAt
        if (field == Field.TENSOR_ARRAY) {
            encoder.writeLong(length); // a block of that many tensors
            encoder.writeString("t");
            encoder.flush();
            return out.toByteArray();
        }
        encoder.writeLong(1); // one tensor
        encoder.writeString("t");
        encoder.writeInt(0); // dtype
        encoder.writeLong(0); // shape: no dimensions
        encoder.writeLong(length); // data
        encoder.writeFixed(new byte[] {1, 2, 3});
        encoder.flush();
        return out.toByteArray();
    }
}
