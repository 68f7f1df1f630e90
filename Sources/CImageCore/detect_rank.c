/* The quad search's learned ranker (step 7 of detect_quad.c): boosted regression trees over a
 * candidate's inputs, generated into detect_rank_model.c by scripts/detector/ranker.py from
 * LightGBM's model. Scalar only: 8 candidates a detection, a few microseconds. */
#include "detect_quad_internal.h"

double ic__dq_rank(const double f[IC_DQ_NF]) {
    double score = 0;
    for (int32_t t = 0; t < ic__dq_rank_trees; t++) {
        int32_t n = ic__dq_rank_root[t];
        while (n >= 0) {
            const ic_dq_rank_node *d = &ic__dq_rank_nodes[n];
            n = f[d->feature] <= d->threshold ? d->left : d->right;
        }
        score += ic__dq_rank_leaves[~n];
    }
    return score;
}
