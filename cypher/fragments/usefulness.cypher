// fragments/usefulness — what feedback says of a memory, as a score factor around 1:
// 1 + $use_weight * (used - unused) / (used + unused + 1), so one report moves it by at
// most half the weight and many consistent reports by nearly all of it: a memory agents
// kept using rises among comparably relevant ones, one they kept ignoring sinks, and
// neither can outrank a much better answer. Written where a query says {{usefulness}};
// needs m (the memory) and $use_weight.
(1 + $use_weight * (coalesce(m.used_count, 0) - coalesce(m.unused_count, 0))
     / (coalesce(m.used_count, 0) + coalesce(m.unused_count, 0) + 1.0))
