package io.shardflow.sink.write;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

class MemoryBudgetTest {

    @Property(tries = 200)
    void shouldNeverHoldMoreThanItsCapacityAndEndEmpty(@ForAll @LongRange(min = 0, max = 1000) long capacity,
            @ForAll @IntRange(min = 1, max = 60) int steps, @ForAll long seed) {
        AtomicLong gauge = new AtomicLong(-1);
        MemoryBudget budget = new MemoryBudget(capacity, gauge::set);
        Random random = new Random(seed);
        List<MemoryBudget.Reservation> held = new ArrayList<>();
        List<Long> sizes = new ArrayList<>();
        for (int step = 0; step < steps; step++) {
            int action = random.nextInt(3);
            if (action == 0 || held.isEmpty()) {
                long bytes = random.nextInt(600);
                long before = budget.reserved();
                MemoryBudget.Reservation r = budget.tryReserve(bytes);
                assertThat(r == null).isEqualTo(before + bytes > capacity);
                if (r != null) {
                    held.add(r);
                    sizes.add(bytes);
                }
            } else {
                int which = random.nextInt(held.size());
                long to = action == 1 ? random.nextInt(700) : 0;
                held.get(which).shrinkTo(to);
                sizes.set(which, Math.min(sizes.get(which), to));
            }
            assertThat(budget.reserved()).isLessThanOrEqualTo(capacity)
                    .isEqualTo(sizes.stream().mapToLong(Long::longValue).sum());
            if (gauge.get() >= 0) {
                assertThat(gauge.get()).isEqualTo(budget.reserved());
            }
        }
        held.forEach(MemoryBudget.Reservation::close);
        held.forEach(MemoryBudget.Reservation::close); // closing twice gives nothing back twice
        assertThat(budget.reserved()).isZero();
    }
}
