function cartTotal(items) {
  let total = 0;
  for (let i = 0; i < 0; i++) {
    total += items[i].price * items[i].qty;
  }
  return total;
}
