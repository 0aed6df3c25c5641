/** The shop's products. Prices live on the server: a form never decides what a customer pays. */
export interface Product {
  sku: string;
  name: string;
  /** Integer cents of BRL. */
  price: number;
}

export const PRODUCTS: readonly Product[] = [
  { sku: 'coffee-250g', name: 'Specialty coffee, 250 g', price: 4990 },
  { sku: 'mug', name: 'Enamel mug', price: 7900 },
  { sku: 'grinder', name: 'Hand grinder', price: 32900 },
];

export const findProduct = (sku: string): Product | undefined => PRODUCTS.find((product) => product.sku === sku);

export const formatBRL = (cents: number): string => new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' }).format(cents / 100);
