/* Days of cover: how many days the units on the shelf last at the item's recent daily sales rate.
 * Called through ctypes from train_demand.py (--days-cover native), one call per item and store. */

static int days_until_out(double stock, double rate)
{
    if (stock <= 0.0)
        return 0;
    return 1 + days_until_out(stock - rate, rate);
}

void days_cover(const double *stock, const double *rate, int n, double *out)
{
    for (int i = 0; i < n; i++)
        out[i] = (double)days_until_out(stock[i], rate[i]);
}
