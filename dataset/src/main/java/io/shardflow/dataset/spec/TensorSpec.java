package io.shardflow.dataset.spec;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * One named, fixed-shape tensor field of a dataset. An empty shape is a scalar.
 *
 * <p>A row's tensor is held in one {@code byte[]} and written into one HDF5 dataset of shape
 * {@code (N, *shape)}, hence the limits: byte length within {@code Integer.MAX_VALUE}, rank at most
 * {@value #MAX_RANK}.
 */
public record TensorSpec(String name, DType dtype, List<Integer> shape) {

    /** numpy's own limit is 32; 8 is more than any training sample needs and keeps jHDF arrays sane. */
    public static final int MAX_RANK = 8;

    public TensorSpec {
        Names.requireTensorName(name);
        Objects.requireNonNull(dtype, () -> "tensor '" + name + "' has no dtype");
        Objects.requireNonNull(shape, () -> "tensor '" + name + "' has no shape (use an empty list for a scalar)");
        if (shape.size() > MAX_RANK) {
            throw new IllegalArgumentException("tensor '" + name + "' has rank " + shape.size()
                    + ", at most " + MAX_RANK + " is supported");
        }
        for (Integer dim : shape) {
            if (dim == null || dim < 1) {
                throw new IllegalArgumentException("tensor '" + name + "' has dimension " + dim
                        + " in shape " + shape + ": every dimension must be >= 1");
            }
        }
        shape = List.copyOf(shape);
        long bytes;
        try {
            bytes = Math.multiplyExact(product(shape), dtype.itemSize());
        } catch (ArithmeticException e) {
            bytes = Long.MAX_VALUE;
        }
        if (bytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("tensor '" + name + "' of shape " + shape + " and dtype "
                    + dtype.numpyName() + " is larger than 2 GiB per sample");
        }
    }

    public static TensorSpec of(String name, DType dtype, Integer... shape) {
        return new TensorSpec(name, dtype, List.of(shape));
    }

    /** Elements per sample; 1 for a scalar. */
    public long elementCount() {
        return product(shape);
    }

    /** Bytes per sample. */
    public long byteLength() {
        return elementCount() * dtype.itemSize();
    }

    public boolean isScalar() {
        return shape.isEmpty();
    }

    /**
     * Parses the CLI form {@code name:dtype[:d1xd2x...]}, e.g. {@code image:float32:3x32x32} or
     * {@code label:int64} (scalar).
     */
    public static TensorSpec parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("tensor spec is empty: expected name:dtype[:AxBxC], e.g. image:float32:3x32x32");
        }
        String[] parts = text.trim().split(":", -1);
        if (parts.length < 2 || parts.length > 3) {
            throw new IllegalArgumentException("tensor spec '" + text + "' must look like name:dtype[:AxBxC],"
                    + " e.g. image:float32:3x32x32 or label:int64");
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
        List<Integer> shape = parts.length == 3 && !parts[2].isEmpty() ? parseShape(text, parts[2]) : List.of();
        try {
            return new TensorSpec(name, dtype, shape);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("tensor spec '" + text + "': " + e.getMessage(), e);
        }
    }

    private static List<Integer> parseShape(String text, String shapeText) {
        List<Integer> dims = new ArrayList<>();
        for (String dimText : shapeText.split("x", -1)) {
            int dim;
            try {
                dim = Integer.parseInt(dimText.trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("tensor spec '" + text + "': bad dimension '" + dimText
                        + "' in shape '" + shapeText + "' (expected positive integers separated by 'x')", e);
            }
            if (dim < 1) {
                throw new IllegalArgumentException("tensor spec '" + text + "': bad dimension '" + dimText
                        + "' in shape '" + shapeText + "' (every dimension must be >= 1)");
            }
            dims.add(dim);
        }
        return dims;
    }

    /** The inverse of {@link #parse}: {@code image:float32:3x32x32}, {@code label:int64}. */
    public String toSpecString() {
        String base = name + ":" + dtype.numpyName();
        return shape.isEmpty() ? base : base + ":" + shape.stream().map(String::valueOf).collect(Collectors.joining("x"));
    }

    private static long product(List<Integer> dims) {
        long n = 1;
        for (int dim : dims) {
            n = Math.multiplyExact(n, dim);
        }
        return n;
    }
}
