// fragments/context_text — turn x's context as it reads after turn p: p's text, then
// x's own; null when there is no p, or when p is private and x public (a public turn
// never carries a private turn's text, so a reader of public memories learns nothing of
// it). Written into a query where it says {{context_text}}; needs p (or null) and x.
CASE WHEN p IS NOT NULL AND (p.visibility = 'public' OR x.visibility = 'private')
     THEN p.text + '\n' + x.text END
