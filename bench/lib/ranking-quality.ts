/** How well a tool search ranks a query set: recall@5 and MRR (over the first 10), for the search benches. */

export interface RankingQuality {
  recall: number;
  mrr: number;
}

/** recall@5 and MRR from the rank of the first right tool per query (-1: not in the first 10). */
export function qualityOfRanks(ranks: readonly number[]): RankingQuality {
  const found = ranks.filter((rank) => rank >= 0 && rank < 5).length;
  const reciprocal = ranks.reduce((sum, rank) => sum + (rank >= 0 ? 1 / (rank + 1) : 0), 0);
  return { recall: found / ranks.length, mrr: reciprocal / ranks.length };
}

/** Higher recall@5 wins; at equal recall, higher MRR. */
export const better = (a: RankingQuality, b: RankingQuality): boolean => a.recall > b.recall || (a.recall === b.recall && a.mrr > b.mrr);
