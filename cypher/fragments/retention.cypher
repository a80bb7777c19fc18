// fragments/retention — a memory's retention R (graphmem/decay.py, the same formula):
// R = floor + (1 - floor) * exp(-ln2 * (age / H_eff) ^ shape), H_eff = h * stability *
// (0.5 + importance) * (0.5 + confidence); 1.0 for a kind that never decays.
// Written into a query where it says {{retention}}; needs m (the memory), d (its kind's
// row of the $decay table: {h, shape, floor}, or null) and age (days since last access).
CASE WHEN d IS NULL OR d.h IS NULL THEN 1.0
     ELSE d.floor + (1 - d.floor) * exp(-log(2) * (
       (CASE WHEN age < 0 THEN 0.0 ELSE age END)
       / (d.h * coalesce(m.stability, 1.0) * (0.5 + coalesce(m.importance, 0.5))
          * (0.5 + coalesce(m.confidence, 0.5)))) ^ d.shape)
END
