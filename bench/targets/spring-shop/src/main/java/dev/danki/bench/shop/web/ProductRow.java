package dev.danki.bench.shop.web;

/**
 * One product as the category page shows it, every value already formatted: Mustache templates hold
 * no logic, so the page's decisions (price format, stock wording) are made here in Java.
 */
public record ProductRow(long id, String name, String price, String stock, String tags, String description) {}
