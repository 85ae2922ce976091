package io.shardflow.app.validate;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.schemas.DType;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** The bulk check agrees with one Float/Double.isFinite per element, for every float width, length, offset and value. */
class FiniteValuesPropertyTest {

    private record Case(DType dtype, byte[] bytes, int offset, int elements) {
    }

    @Property(tries = 2000)
    void shouldFindANonFiniteValueWhereverItIs(@ForAll("tensors") Case tensor) {
        int size = itemSize(tensor.dtype());
        ByteBuffer slice = ByteBuffer.wrap(tensor.bytes(), tensor.offset(), tensor.elements() * size).slice();

        assertThat(FiniteValues.allFinite(tensor.dtype(), slice)).isEqualTo(reference(tensor.dtype(), slice));
        ByteBuffer direct = ByteBuffer.allocateDirect(slice.remaining()).put(slice.duplicate()).flip();
        assertThat(FiniteValues.allFinite(tensor.dtype(), direct)).as("a direct buffer").isEqualTo(reference(tensor.dtype(), slice));
    }

    /**
     * Any bit pattern, over lengths that span several of the check's blocks and end in a partial
     * word: each element is random bits, an exponent one bit short of all set, or all set (NaN or
     * infinity), so a non-finite value sits in any lane of any word or the tail.
     */
    @Property(tries = 1000)
    void shouldAgreeWithIsFiniteForAnyBitPatternAcrossBlocks(@ForAll("dtypes") DType dtype, @ForAll("lengths") int elements,
                                                            @ForAll long seed, @ForAll("rarities") int rarity) {
        int size = itemSize(dtype);
        java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
        int offset = random.nextInt(8);
        byte[] bytes = new byte[offset + elements * size];
        random.nextBytes(bytes);
        ByteBuffer view = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < elements; i++) {
            int at = offset + i * size + size - 1;
            int draw = random.nextInt(rarity);
            if (draw == 0) {
                bytes[at] |= 0x7F; // with the next bits below: every exponent bit set in every format
                setBelowTopByte(view, dtype, offset + i * size, true);
            } else if (draw == 1) {
                bytes[at] |= 0x7F; // one exponent bit short of all set: finite
                setBelowTopByte(view, dtype, offset + i * size, false);
            }
        }
        ByteBuffer slice = ByteBuffer.wrap(bytes, offset, elements * size).slice();

        assertThat(FiniteValues.allFinite(dtype, slice)).isEqualTo(reference(dtype, slice));
    }

    /** The exponent bits below the top byte: all set, or all set but the lowest. */
    private static void setBelowTopByte(ByteBuffer view, DType dtype, int element, boolean all) {
        int top = element + itemSize(dtype) - 2;
        int bits = switch (dtype) {
            case FLOAT16 -> 0x7C;
            case BFLOAT16, FLOAT32 -> 0x80;
            default -> 0xF0;
        };
        int lowest = switch (dtype) {
            case FLOAT16 -> 0x04;
            case BFLOAT16, FLOAT32 -> 0x80;
            default -> 0x10;
        };
        if (dtype == DType.FLOAT16) {
            // float16's exponent is entirely in its top byte: bits 2-6
            int at = element + 1;
            view.put(at, (byte) (all ? view.get(at) | bits : (view.get(at) | bits) & ~lowest));
            return;
        }
        view.put(top, (byte) (all ? view.get(top) | bits : view.get(top) & ~lowest | (bits & ~lowest)));
    }

    @Provide
    Arbitrary<DType> dtypes() {
        return Arbitraries.of(DType.FLOAT16, DType.BFLOAT16, DType.FLOAT32, DType.FLOAT64);
    }

    @Provide
    Arbitrary<Integer> lengths() {
        return Arbitraries.integers().between(0, 700);
    }

    /** One element in this many is made non-finite, and one made nearly so. */
    @Provide
    Arbitrary<Integer> rarities() {
        return Arbitraries.of(2, 3, 50, 1000, 100_000);
    }

    @Provide
    Arbitrary<Case> tensors() {
        Arbitrary<DType> dtypes = Arbitraries.of(DType.FLOAT16, DType.BFLOAT16, DType.FLOAT32, DType.FLOAT64, DType.UINT8);
        return dtypes.flatMap(dtype -> Combinators.combine(Arbitraries.integers().between(0, 40), Arbitraries.integers().between(0, 9),
                Arbitraries.longs(), Arbitraries.integers().between(-1, 39), Arbitraries.of(0, 1, 2, 3)).as((elements, offset, seed, at, kind) -> {
                    int size = itemSize(dtype);
                    byte[] bytes = new byte[offset + elements * size + 3];
                    new java.util.SplittableRandom(seed).nextBytes(bytes);
                    // keep random values mostly finite, then plant one special value (or none) at one element
                    ByteBuffer view = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
                    for (int i = 0; i < elements; i++) {
                        int at2 = offset + i * size + size - 1;
                        bytes[at2] &= (byte) 0x3F; // the exponent's top bits cleared: finite in every format
                    }
                    if (at >= 0 && at < elements) {
                        plant(view, dtype, offset + at * size, kind);
                    }
                    return new Case(dtype, bytes, offset, elements);
                }));
    }

    private static void plant(ByteBuffer view, DType dtype, int at, int kind) {
        switch (dtype) {
            case FLOAT32 -> view.putFloat(at, new float[] {Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.MAX_VALUE}[kind]);
            case FLOAT64 -> view.putDouble(at, new double[] {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, -Double.MAX_VALUE}[kind]);
            case FLOAT16 -> view.putShort(at, new short[] {(short) 0x7E00, (short) 0x7C00, (short) 0xFC00, (short) 0x7BFF}[kind]);
            case BFLOAT16 -> view.putShort(at, new short[] {(short) 0x7FC0, (short) 0x7F80, (short) 0xFF80, (short) 0x7F7F}[kind]);
            default -> view.put(at, (byte) 0xFF);
        }
    }

    private static int itemSize(DType dtype) {
        return switch (dtype) {
            case FLOAT16, BFLOAT16 -> 2;
            case FLOAT32 -> 4;
            case FLOAT64 -> 8;
            default -> 1;
        };
    }

    /** One element at a time, as the rule reads. */
    private static boolean reference(DType dtype, ByteBuffer data) {
        ByteBuffer le = data.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        for (int i = le.position(); i + itemSize(dtype) <= le.limit(); i += itemSize(dtype)) {
            boolean finite = switch (dtype) {
                case FLOAT32 -> Float.isFinite(le.getFloat(i));
                case FLOAT64 -> Double.isFinite(le.getDouble(i));
                case FLOAT16 -> (le.getShort(i) & 0x7C00) != 0x7C00;
                case BFLOAT16 -> Float.isFinite(Float.intBitsToFloat(le.getShort(i) << 16));
                default -> true;
            };
            if (!finite) {
                return false;
            }
        }
        return true;
    }
}
