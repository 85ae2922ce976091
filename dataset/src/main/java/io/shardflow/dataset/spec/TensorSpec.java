package io.shardflow.dataset.spec;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * One named tensor field of a dataset. An empty shape is a scalar.
 *
 * <p>A dimension may be free ({@link #FREE}), optionally with a maximum: every sample then has its
 * own size there ({@code boxes:float32:?x4}, {@code tokens:int32:?<=512}). {@code string} and
 * {@code bytes} tensors hold one value of any length per sample and have no shape; a {@code bytes}
 * tensor may name the media it holds ({@code frame:bytes:image/jpeg}).
 *
 * <p>A row's tensor is held in one {@code byte[]}, hence the limits: byte length within
 * {@code Integer.MAX_VALUE}, rank at most {@value #MAX_RANK}.
 *
 * @param maxDims  for each free dimension its maximum (0 = none), for each fixed one 0; empty when
 *                 no dimension is free
 * @param encoding media type of a {@code bytes} tensor ({@link #MEDIA_TYPES}), else {@code null}
 */
public record TensorSpec(String name, DType dtype, List<Integer> shape, List<Integer> maxDims, String encoding) {

    /** numpy's own limit is 32; 8 is more than any training sample needs and keeps jHDF arrays sane. */
    public static final int MAX_RANK = 8;
    /** A free dimension in {@link #shape()}. */
    public static final int FREE = -1;
    /** The encodings a {@code bytes} tensor may declare; readers can decode them to uint8 HxWxC. */
    public static final Set<String> MEDIA_TYPES = Set.of("image/jpeg", "image/png");

    public TensorSpec {
        Names.requireTensorName(name);
        Objects.requireNonNull(dtype, () -> "tensor '" + name + "' has no dtype");
        Objects.requireNonNull(shape, () -> "tensor '" + name + "' has no shape (use an empty list for a scalar)");
        maxDims = maxDims == null ? List.of() : maxDims;
        if (shape.size() > MAX_RANK) {
            throw new IllegalArgumentException("tensor '" + name + "' has rank " + shape.size()
                    + ", at most " + MAX_RANK + " is supported");
        }
        if (dtype.variableLength() && !shape.isEmpty()) {
            throw new IllegalArgumentException("tensor '" + name + "' is " + dtype.numpyName()
                    + ": one value of any length per sample, it takes no shape (got " + shape + ")");
        }
        if (encoding != null && (dtype != DType.BYTES || !MEDIA_TYPES.contains(encoding))) {
            throw new IllegalArgumentException("tensor '" + name + "' declares encoding '" + encoding
                    + "': only bytes tensors take one, and it must be one of " + MEDIA_TYPES.stream().sorted().toList());
        }
        boolean anyFree = false;
        for (Integer dim : shape) {
            if (dim == null || (dim < 1 && dim != FREE)) {
                throw new IllegalArgumentException("tensor '" + name + "' has dimension " + dim
                        + " in shape " + shape + ": every dimension must be >= 1 or free (?)");
            }
            anyFree |= dim == FREE;
        }
        if (!maxDims.isEmpty() && (maxDims.size() != shape.size() || !anyFree)) {
            throw new IllegalArgumentException("tensor '" + name + "' has maxima " + maxDims
                    + " that do not match its free dimensions " + shape);
        }
        for (int d = 0; d < maxDims.size(); d++) {
            int max = maxDims.get(d);
            if (max < 0 || (max > 0 && shape.get(d) != FREE)) {
                throw new IllegalArgumentException("tensor '" + name + "' has maximum " + max + " at dimension " + d
                        + " of " + shape + ": only a free dimension takes a maximum, and it must be >= 1");
            }
        }
        shape = List.copyOf(shape);
        maxDims = anyFree && maxDims.isEmpty() ? Collections.nCopies(shape.size(), 0) : List.copyOf(maxDims);
        if (!anyFree && !dtype.variableLength() && sizeOf(shape, dtype) > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("tensor '" + name + "' of shape " + shape + " and dtype "
                    + dtype.numpyName() + " is larger than 2 GiB per sample");
        }
    }

    public TensorSpec(String name, DType dtype, List<Integer> shape) {
        this(name, dtype, shape, List.of(), null);
    }

    public static TensorSpec of(String name, DType dtype, Integer... shape) {
        return new TensorSpec(name, dtype, List.of(shape));
    }

    /** Whether samples differ in size: a string or bytes tensor, or a free dimension. */
    public boolean isVariable() {
        return dtype.variableLength() || hasFreeDimension();
    }

    public boolean hasFreeDimension() {
        return shape.contains(FREE);
    }

    /** Elements per sample; 1 for a scalar. Only for fixed tensors. */
    public long elementCount() {
        requireFixed();
        return product(shape);
    }

    /** Bytes per sample. Only for fixed tensors. */
    public long byteLength() {
        requireFixed();
        return elementCount() * dtype.itemSize();
    }

    public boolean isScalar() {
        return shape.isEmpty();
    }

    /**
     * Why a sample's own shape does not fit this spec, or {@code null} when it does: a different rank
     * or fixed dimension ({@code SHAPE_MISMATCH}) or a free dimension above its maximum.
     */
    public ShapeProblem checkShape(List<Integer> actual) {
        if (actual.size() != shape.size()) {
            return new ShapeProblem(false, "has rank " + actual.size() + " (shape " + actual + "), spec " + shapeText() + " needs " + shape.size());
        }
        for (int d = 0; d < shape.size(); d++) {
            int dim = actual.get(d);
            int expected = shape.get(d);
            if (expected == FREE) {
                if (dim < 0) {
                    return new ShapeProblem(false, "has negative dimension " + dim + " in shape " + actual);
                }
                int max = maxDims.get(d);
                if (max > 0 && dim > max) {
                    return new ShapeProblem(true, "has " + dim + " at free dimension " + d + " of shape " + actual
                            + ", spec " + shapeText() + " allows at most " + max);
                }
            } else if (dim != expected) {
                return new ShapeProblem(false, "has shape " + actual + ", spec says " + shapeText());
            }
        }
        return null;
    }

    /** @param overMaximum a free dimension beyond its maximum (else a rank or fixed-dimension mismatch) */
    public record ShapeProblem(boolean overMaximum, String detail) {
    }

    /**
     * Parses the CLI form {@code name:dtype[:SHAPE]}: {@code image:float32:3x32x32}, {@code label:int64}
     * (scalar), {@code boxes:float32:?x4}, {@code tokens:int32:?<=512}, {@code caption:string},
     * {@code frame:bytes:image/jpeg}.
     */
    public static TensorSpec parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("tensor spec is empty: expected name:dtype[:AxBxC], e.g. image:float32:3x32x32");
        }
        String[] parts = text.trim().split(":", -1);
        if (parts.length < 2 || parts.length > 3) {
            throw new IllegalArgumentException("tensor spec '" + text + "' must look like name:dtype[:AxBxC],"
                    + " e.g. image:float32:3x32x32, label:int64, boxes:float32:?x4 or frame:bytes:image/jpeg");
        }
        String name = parts[0];
        if (!Names.TENSOR_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("tensor spec '" + text + "': bad name '" + name
                    + "' (letters, digits and '_', not starting with a digit, at most 64)");
        }
        DType dtype;
        try {
            dtype = DType.parse(parts[1]);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("tensor spec '" + text + "': " + e.getMessage(), e);
        }
        String third = parts.length == 3 ? parts[2].trim() : "";
        try {
            if (dtype == DType.BYTES && third.contains("/")) {
                return new TensorSpec(name, dtype, List.of(), List.of(), third);
            }
            List<Integer> shape = new ArrayList<>();
            List<Integer> maxima = new ArrayList<>();
            if (!third.isEmpty()) {
                parseShape(text, third, shape, maxima);
            }
            return new TensorSpec(name, dtype, shape, shape.contains(FREE) ? maxima : List.of(), null);
        } catch (IllegalArgumentException e) {
            throw e.getMessage().startsWith("tensor spec '") ? e
                    : new IllegalArgumentException("tensor spec '" + text + "': " + e.getMessage(), e);
        }
    }

    private static void parseShape(String text, String shapeText, List<Integer> shape, List<Integer> maxima) {
        for (String raw : shapeText.split("x", -1)) {
            String dimText = raw.trim();
            if (dimText.startsWith("?")) {
                shape.add(FREE);
                maxima.add(parseMaximum(text, shapeText, dimText));
                continue;
            }
            int dim;
            try {
                dim = Integer.parseInt(dimText);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("tensor spec '" + text + "': bad dimension '" + dimText
                        + "' in shape '" + shapeText + "' (expected positive integers or free dimensions ?, ?<=N separated by 'x')", e);
            }
            if (dim < 1) {
                throw new IllegalArgumentException("tensor spec '" + text + "': bad dimension '" + dimText
                        + "' in shape '" + shapeText + "' (every dimension must be >= 1)");
            }
            shape.add(dim);
            maxima.add(0);
        }
    }

    private static int parseMaximum(String text, String shapeText, String dimText) {
        if (dimText.equals("?")) {
            return 0;
        }
        String bound = dimText.startsWith("?<=") ? dimText.substring(3).trim() : null;
        try {
            int max = bound == null ? 0 : Integer.parseInt(bound);
            if (max >= 1) {
                return max;
            }
        } catch (NumberFormatException e) {
            // reported below with the whole rule
        }
        throw new IllegalArgumentException("tensor spec '" + text + "': bad free dimension '" + dimText
                + "' in shape '" + shapeText + "' (expected ? or ?<=N with N >= 1)");
    }

    /** The shape part of the spec text: {@code 3x32x32}, {@code ?<=512x4}, a media type, or "" for a scalar. */
    public String shapeText() {
        if (encoding != null) {
            return encoding;
        }
        return IntStream.range(0, shape.size()).mapToObj(d -> {
            int dim = shape.get(d);
            if (dim != FREE) {
                return String.valueOf(dim);
            }
            int max = maxDims.get(d);
            return max > 0 ? "?<=" + max : "?";
        }).collect(Collectors.joining("x"));
    }

    /** The inverse of {@link #parse}: {@code image:float32:3x32x32}, {@code label:int64}. */
    public String toSpecString() {
        String base = name + ":" + dtype.numpyName();
        String shapePart = shapeText();
        return shapePart.isEmpty() ? base : base + ":" + shapePart;
    }

    private void requireFixed() {
        if (isVariable()) {
            throw new IllegalStateException("tensor '" + name + "' (" + toSpecString() + ") has no fixed size per sample");
        }
    }

    private static long sizeOf(List<Integer> dims, DType dtype) {
        try {
            return Math.multiplyExact(product(dims), dtype.itemSize());
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    private static long product(List<Integer> dims) {
        long n = 1;
        for (int dim : dims) {
            n = Math.multiplyExact(n, dim);
        }
        return n;
    }
}
