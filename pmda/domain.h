/*
 * pmdakpmc's PCP domain: unused in PCP's stdpmid list (pcp 6.0.3, Debian 12),
 * where 159-240 are free.
 */
#define KPMC 170
