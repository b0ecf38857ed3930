#include <libpq-fe.h>

/* The fields of an error result are chosen by character constants
   (PG_DIAG_SQLSTATE is 'C'), which Swift does not import as macros. */
static inline const char *larder_pq_sqlstate(const PGresult *result) {
    return PQresultErrorField(result, PG_DIAG_SQLSTATE);
}

static inline const char *larder_pq_primary_message(const PGresult *result) {
    return PQresultErrorField(result, PG_DIAG_MESSAGE_PRIMARY);
}
