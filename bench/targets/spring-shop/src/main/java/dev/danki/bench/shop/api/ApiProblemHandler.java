package dev.danki.bench.shop.api;

import dev.danki.bench.shop.catalog.ProductNotFoundException;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.MethodArgumentNotValidException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.method.annotation.HandlerMethodValidationException;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

/**
 * Turns the API's failures into RFC 9457 problem JSON. The base class covers Spring's own errors
 * (bad JSON, wrong types); this adds the unknown product and lists every invalid field, so a client
 * can fix all of them in one go.
 */
@RestControllerAdvice(basePackageClasses = ApiProblemHandler.class)
public class ApiProblemHandler extends ResponseEntityExceptionHandler {

    /** One invalid input: where it is ({@code items[0].quantity}) and what was wrong with it. */
    public record FieldProblem(String field, String message) {}

    @ExceptionHandler(ProductNotFoundException.class)
    ProblemDetail productNotFound(ProductNotFoundException e) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.NOT_FOUND, e.getMessage());
        problem.setTitle("Product not found");
        problem.setProperty("productId", e.productId());
        return problem;
    }

    @Override
    protected ResponseEntity<Object> handleMethodArgumentNotValid(
            MethodArgumentNotValidException e, HttpHeaders headers, HttpStatusCode status, WebRequest request) {
        List<FieldProblem> errors = e.getBindingResult().getFieldErrors().stream()
                .map(error -> new FieldProblem(error.getField(), error.getDefaultMessage()))
                .toList();
        return invalid(e.getBody(), errors, headers, status, request, e);
    }

    @Override
    protected ResponseEntity<Object> handleHandlerMethodValidationException(
            HandlerMethodValidationException e, HttpHeaders headers, HttpStatusCode status, WebRequest request) {
        List<FieldProblem> errors = e.getParameterValidationResults().stream()
                .flatMap(result -> result.getResolvableErrors().stream()
                        .map(error -> new FieldProblem(
                                result.getMethodParameter().getParameterName(), error.getDefaultMessage())))
                .toList();
        return invalid(e.getBody(), errors, headers, status, request, e);
    }

    private ResponseEntity<Object> invalid(
            ProblemDetail problem, List<FieldProblem> errors, HttpHeaders headers, HttpStatusCode status,
            WebRequest request, Exception e) {
        problem.setTitle("Invalid request");
        problem.setDetail(errors.size() + " invalid field(s)");
        // sorted, so the same bad request always gets the same answer
        problem.setProperties(Map.of("errors", errors.stream()
                .sorted(Comparator.comparing(FieldProblem::field).thenComparing(FieldProblem::message))
                .toList()));
        return handleExceptionInternal(e, problem, headers, status, request);
    }
}
