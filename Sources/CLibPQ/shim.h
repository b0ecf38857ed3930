/* Types and constants only: larder loads libpq itself when a store on
   PostgreSQL is opened (see LibPQ.swift), so nothing here links it.
   Debian's libpq-dev puts the header in /usr/include/postgresql. */
#include <postgresql/libpq-fe.h>
