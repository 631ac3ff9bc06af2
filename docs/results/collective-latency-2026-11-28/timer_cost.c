/* The wake-up cost of docs/liboverlap.md ("Standing down"): arming and cancelling a timerfd,
 * a plain system call and an eventfd write, each timed over 100000 calls.
 *   gcc -O2 -o /tmp/timer_cost docs/results/collective-latency-2026-11-28/timer_cost.c && /tmp/timer_cost */
#include <sys/timerfd.h>
#include <sys/eventfd.h>
#include <time.h>
#include <stdio.h>
#include <unistd.h>
#include <stdint.h>
static double now(){struct timespec t; clock_gettime(CLOCK_MONOTONIC,&t); return t.tv_sec+t.tv_nsec*1e-9;}
int main(){ int fd=timerfd_create(CLOCK_MONOTONIC,TFD_CLOEXEC|TFD_NONBLOCK); int ev=eventfd(0,0);
 struct itimerspec on={{0,0},{0,150000}}, off={{0,0},{0,0}}; int n=100000;
 double t0=now(); for(int i=0;i<n;i++){timerfd_settime(fd,0,&on,0); timerfd_settime(fd,0,&off,0);} double t1=now();
 printf("arm+cancel: %.2f us\n",(t1-t0)/n*1e6);
 t0=now(); for(int i=0;i<n;i++){getppid();} t1=now(); printf("getppid: %.2f us\n",(t1-t0)/n*1e6);
 uint64_t one=1; t0=now(); for(int i=0;i<n;i++){write(ev,&one,8);} t1=now(); printf("eventfd write: %.2f us\n",(t1-t0)/n*1e6);
}
